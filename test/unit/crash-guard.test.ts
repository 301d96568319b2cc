import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';

// What the process does on an uncaught exception outside any request (docs/reliability.md). In a request
// it fails that request alone (test/http/untrusted-images.test.ts); outside one the state is unknown, so it logs
// fatal and exits 1 for the service manager to restart it. A real process, with the daemon's guard and logger.

const guard = suite('crash guard: an uncaught exception outside any request');

guard('is logged fatal and ends the process with status 1, as Node would, for systemd to restart it', () => {
  const dist = path.resolve(__dirname, '../../src');
  const script = `
    const { installCrashGuard } = require(${JSON.stringify(path.join(dist, 'http/crash-guard.js'))});
    const { createLogger } = require(${JSON.stringify(path.join(dist, 'logger.js'))});
    installCrashGuard(createLogger({ logLevel: 'info', logFormat: 'json' }));
    setTimeout(() => { throw new Error('thrown by a background timer'); }, 10);
    setTimeout(() => console.log('still running'), 3000);
  `;
  const run = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 20_000 });
  assert.is(run.status, 1, run.stderr);
  assert.not.match(run.stdout, /still running/);
  const line = run.stdout
    .split('\n')
    .filter(Boolean)
    .map((text) => JSON.parse(text) as { level: number; msg: string; err?: { message: string } })
    .find((entry) => entry.msg.startsWith('uncaught exception outside any request'));
  assert.ok(line, run.stdout);
  assert.is(line.level, 60, 'fatal');
  assert.is(line.err?.message, 'thrown by a background timer');
});

guard.run();
