import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import BetterSqlite3 from 'better-sqlite3';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { installedDataDir, runWip } from '../helpers/spawn-wip';

const ROWS = 100_000;
const START = Date.parse('2026-01-01T00:00:00Z');

/** Seeds the logs table directly (through HTTP 100k rows would take minutes). Row i: level by i % 3, client i % 5 + 1, one second apart. */
function seed(dataDir: string, rows: number): void {
  const db = new BetterSqlite3(path.join(dataDir, 'wip.db'));
  db.prepare('DELETE FROM logs').run();
  const insert = db.prepare('INSERT INTO logs (created_at, level, event, message, client_id, user_id, data) VALUES (?, ?, ?, ?, ?, ?, ?)');
  const padding = 'x'.repeat(600);
  db.transaction(() => {
    for (let i = 0; i < rows; i++) {
      insert.run(
        new Date(START + i * 1000).toISOString(),
        ['info', 'warn', 'error'][i % 3],
        'test.export',
        `row ${i}, "quoted", with comma`,
        (i % 5) + 1,
        i,
        JSON.stringify({ i, padding }),
      );
    }
  })();
  db.close();
}

async function countLines(file: string): Promise<{ lines: number; first: string; last: string }> {
  let lines = 0;
  let first = '';
  let last = '';
  for await (const line of readline.createInterface({ input: fs.createReadStream(file) })) {
    if (lines === 0) first = line;
    last = line;
    lines++;
  }
  return { lines, first, last };
}

const test = suite('wip logs export');
let ctx: Awaited<ReturnType<typeof installedDataDir>>;
test.before(async () => {
  ctx = await installedDataDir();
  seed(ctx.dataDir, ROWS);
});
test.after(() => fs.rmSync(ctx.root, { recursive: true, force: true }));

/** Runs an export with the memory debug line on and a small V8 heap cap (48 MB: the CLI itself loads the whole application; the export is larger than 60 MB): buffering the export would not fit. */
async function exportWithMemory(args: string[]) {
  const result = await runWip(['logs', 'export', ...args], {
    ...ctx.env,
    WIP_DEBUG_MEMORY: '1',
    NODE_OPTIONS: '--max-old-space-size=48 --max-semi-space-size=1',
  });
  assert.is(result.code, 0, result.stderr);
  const debug = JSON.parse(/wip-debug-memory (.*)/.exec(result.stderr)![1]) as { rows: number; rssStart: number; rssPeak: number };
  return { result, debug, growth: debug.rssPeak - debug.rssStart };
}

test('exports 100k rows as NDJSON in constant memory, every row once, oldest first', async () => {
  const small = path.join(ctx.root, 'small.ndjson');
  const file = path.join(ctx.root, 'all.ndjson');
  // The baseline is past the allocator's warm-up (a few MB of arenas in the first batches).
  const baseline = await exportWithMemory(['--output', small, '--until', new Date(START + 30_000 * 1000).toISOString()]);
  assert.is(baseline.debug.rows, 30_000);
  const full = await exportWithMemory(['--output', file, '--json']);
  assert.equal(JSON.parse(full.result.stdout), { rows: ROWS, file, format: 'ndjson' });
  assert.not.ok(full.result.stderr.includes('\r'), 'no progress bar when not on a terminal');
  const { lines, first, last } = await countLines(file);
  assert.is(lines, ROWS);
  assert.is(JSON.parse(first).data.i, 0);
  assert.is(JSON.parse(last).data.i, ROWS - 1);
  const size = fs.statSync(file).size;
  assert.ok(size > 60 * 1024 * 1024, `the export is large (${size} bytes) next to the 48 MB heap cap`);
  // More than three times the rows, (nearly) the same memory: growth does not follow the row count.
  const extra = full.growth - baseline.growth;
  const mb = (n: number) => Math.round(n / 1024 / 1024);
  assert.ok(extra < 16 * 1024 * 1024, `RSS growth ${mb(full.growth)} MB for 100k rows vs ${mb(baseline.growth)} MB for 30k rows`);
  assert.ok(full.growth < size, `RSS grew by ${mb(full.growth)} MB while exporting ${mb(size)} MB`);
});

test('CSV with --level, --client and a time range: the right rows, RFC 4180 quoting, to stdout', async () => {
  const since = new Date(START + 3000 * 1000).toISOString();
  const until = new Date(START + 6000 * 1000).toISOString();
  const result = await runWip(
    ['logs', 'export', '--format', 'csv', '--level', 'warn,error', '--client', '2', '--since', since, '--until', until],
    ctx.env,
  );
  assert.is(result.code, 0, result.stderr);
  const lines = result.stdout.trim().split('\n');
  assert.is(lines[0], 'id,createdAt,level,event,message,clientId,userId,adminId,actor,ip,userAgent,requestId,data');
  // i in [3000, 6000) with i % 5 == 1 and i % 3 != 0
  let expected = 0;
  for (let i = 3000; i < 6000; i++) if (i % 5 === 1 && i % 3 !== 0) expected++;
  assert.is(lines.length - 1, expected);
  assert.match(
    lines[1],
    /^\d+,2026-01-01T00:50:01\.000Z,(warn|error),test\.export,"row 3001, ""quoted"", with comma",2,3001,,,,,,"\{""i"":3001,/,
  );
});

test('bad options are usage errors (exit 2)', async () => {
  assert.is((await runWip(['logs', 'export', '--format', 'xml'], ctx.env)).code, 2);
  assert.is((await runWip(['logs', 'export', '--since', 'yesterday'], ctx.env)).code, 2);
  assert.is((await runWip(['logs', 'export', '--level', 'debug'], ctx.env)).code, 2);
});

test.run();
