/**
 * `node dist/scripts/bench/profile-summary.js FILE.cpuprofile [N]`: where a
 * V8 CPU profile (node --cpu-prof, BENCH_PROFILE=1) spends its busy time —
 * self time by function and by package (node_modules/<name>, wip's own
 * files, node internals), idle and GC shown apart.
 */
import fs from 'node:fs';

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

const [file, top = '25'] = process.argv.slice(2);
const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as { nodes: Node[]; samples: number[]; timeDeltas: number[] };
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const self = new Map<number, number>();
profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));

function area(url: string): string {
  const nm = /node_modules\/((@[^/]+\/)?[^/]+)/.exec(url);
  if (nm) return nm[1];
  if (url.includes('/dist/')) return 'wip';
  if (url.startsWith('node:')) return 'node';
  return url ? 'other' : 'native';
}

const functions = new Map<string, number>();
const areas = new Map<string, number>();
let total = 0;
let idle = 0;
for (const [id, us] of self) {
  const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
  if (functionName === '(idle)') {
    idle += us;
    continue;
  }
  total += us;
  const key = `${functionName || '(anonymous)'} ${url.replace(/^.*\/(node_modules|dist)\//, '')}:${lineNumber + 1}`;
  functions.set(key, (functions.get(key) ?? 0) + us);
  const a = functionName.startsWith('(') ? functionName : area(url);
  areas.set(a, (areas.get(a) ?? 0) + us);
}
const pct = (us: number) => `${((100 * us) / total).toFixed(1).padStart(5)}%`;
console.log(`busy ${(total / 1e6).toFixed(2)} s, idle ${(idle / 1e6).toFixed(2)} s`);
console.log('── by area');
for (const [name, us] of [...areas].sort((a, b) => b[1] - a[1]).slice(0, 20)) console.log(pct(us), name);
console.log('── by function (self)');
for (const [name, us] of [...functions].sort((a, b) => b[1] - a[1]).slice(0, Number(top))) console.log(pct(us), name);

// inclusive time of wip's own functions (self + everything they call), to see which layer costs what
const inclusive = new Map<string, number>();
const parentOf = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parentOf.set(c, n.id);
for (const [id, us] of self) {
  const seen = new Set<string>();
  for (let cur: number | undefined = id; cur !== undefined; cur = parentOf.get(cur)) {
    const { functionName, url, lineNumber } = byId.get(cur)!.callFrame;
    if (!url.includes('/dist/') || url.includes('node_modules')) continue;
    const key = `${functionName || '(anonymous)'} ${url.replace(/^.*\/dist\//, '')}:${lineNumber + 1}`;
    if (seen.has(key)) continue;
    seen.add(key);
    inclusive.set(key, (inclusive.get(key) ?? 0) + us);
  }
}
console.log("── wip's functions, inclusive");
for (const [name, us] of [...inclusive].sort((a, b) => b[1] - a[1]).slice(0, Number(top))) console.log(pct(us), name);
