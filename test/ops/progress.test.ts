import { Writable } from 'node:stream';
import { Command } from 'commander';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { progressBar } from '#cli/progress';

function fakeStream(isTTY: boolean): NodeJS.WriteStream & { text: string } {
  const stream = new Writable({
    write(chunk, _enc, done) {
      stream.text += String(chunk);
      done();
    },
  }) as unknown as NodeJS.WriteStream & { text: string };
  stream.text = '';
  (stream as { isTTY: boolean }).isTTY = isTTY;
  return stream;
}

function command(args: string[]): Command {
  const program = new Command().option('--json').exitOverride();
  let sub!: Command;
  program.command('x').action((_o, c: Command) => void (sub = c));
  program.parse(['node', 'wip', ...args, 'x']);
  return sub;
}

const test = suite('progress bar (CLI)');

test('drawn on a terminal, with the count and a final newline', () => {
  const stream = fakeStream(true);
  const bar = progressBar(command([]), 'export', stream);
  assert.ok(bar.active);
  bar.update(50, 100);
  bar.update(100, 100);
  bar.finish();
  assert.match(stream.text, /\rexport \[#{30}\] 100% \(100\/100\)/);
  assert.ok(stream.text.endsWith('\n'));
});

test('nothing when not a terminal, and nothing with --json', () => {
  for (const [tty, args] of [
    [false, []],
    [true, ['--json']],
  ] as const) {
    const stream = fakeStream(tty);
    const bar = progressBar(command([...args]), 'export', stream);
    assert.not.ok(bar.active);
    bar.update(1, 2);
    bar.finish();
    assert.is(stream.text, '');
  }
});

test.run();
