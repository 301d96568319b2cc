import type { Command } from 'commander';
import { presentOutboxMessage } from '#presenters';
import { listOutboxMessages, retryFailedMail } from '#services/mail';
import type { OutboxStatus } from '#db/schema';
import { outboxDir } from '#mail/outbox-files';
import { UsageError, output, withDeps } from './context';

const STATUSES: OutboxStatus[] = ['pending', 'sent', 'stored', 'failed'];

export function registerMail(program: Command): void {
  const mail = program.command('mail').description('the outgoing mail outbox (invitations, password resets, notices)');

  mail
    .command('outbox')
    .description('list outbox messages, newest first; without SMTP each message is also <data-dir>/outbox/<id>.eml')
    .option('--status <status>', `only messages in this status (${STATUSES.join(', ')})`)
    .option('--limit <n>', 'how many (1-200, default 50)', '50')
    .action(async (opts: { status?: string; limit: string }, command: Command) => {
      if (opts.status !== undefined && !STATUSES.includes(opts.status as OutboxStatus)) {
        throw new UsageError(`--status must be one of ${STATUSES.join(', ')}`);
      }
      const limit = Number(opts.limit);
      if (!Number.isInteger(limit) || limit < 1 || limit > 200) throw new UsageError('--limit must be an integer from 1 to 200');
      await withDeps(command, async (deps) => {
        const page = await listOutboxMessages(deps, { limit }, opts.status as OutboxStatus | undefined);
        const items = page.items.map(presentOutboxMessage);
        const dir = outboxDir(deps.config.dataDir);
        const lines = items.map(
          (m) =>
            `${m.id}\t${m.status}\t${m.createdAt}\t${m.to}\t${m.subject}` +
            (m.status === 'stored' ? `\t${dir}/${m.id}.eml` : '') +
            (m.lastError ? `\t(last error: ${m.lastError})` : ''),
        );
        output(command, items.length ? lines.join('\n') : 'The outbox is empty', items);
      });
    });

  mail
    .command('retry')
    .description('put failed messages (all, or --id) back in the queue and try to deliver them now')
    .option('--id <id>', 'only this message')
    .action(async (opts: { id?: string }, command: Command) => {
      const id = opts.id === undefined ? undefined : Number(opts.id);
      if (id !== undefined && (!Number.isInteger(id) || id < 1)) throw new UsageError('--id must be a message id');
      await withDeps(command, async (deps) => {
        const count = await retryFailedMail(deps, id);
        output(command, `${count} message(s) re-queued`, { requeued: count });
      });
    });
}
