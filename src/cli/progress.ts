import type { Command } from 'commander';
import { globalOptions } from './context';

export interface Progress {
  /** false when nothing is drawn (not a terminal, or --json) */
  active: boolean;
  update(done: number, total: number, label?: string): void;
  finish(): void;
}

const silent: Progress = { active: false, update: () => undefined, finish: () => undefined };

/**
 * A one-line progress bar on stderr, only when stderr is a terminal and the
 * output is not --json: piped and scripted runs stay clean.
 */
export function progressBar(command: Command, label: string, stream: NodeJS.WriteStream = process.stderr): Progress {
  if (!stream.isTTY || globalOptions(command).json) return silent;
  let last = 0;
  let drawn = false;
  const draw = (done: number, total: number, text: string) => {
    const width = 30;
    const ratio = total > 0 ? Math.min(1, done / total) : 0;
    const filled = Math.round(ratio * width);
    stream.write(`\r${text} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${Math.floor(ratio * 100)}% (${done}/${total})\x1b[K`);
    drawn = true;
  };
  return {
    active: true,
    update(done, total, text = label) {
      const now = Date.now();
      if (now - last < 100 && done < total) return; // at most 10 redraws a second
      last = now;
      draw(done, total, text);
    },
    finish() {
      if (drawn) stream.write('\n');
    },
  };
}
