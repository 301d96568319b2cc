import { SMTPServer } from 'smtp-server';
import { waitFor } from './wait';

export interface ReceivedMail {
  from: string;
  to: string[];
  subject: string;
  headers: Record<string, string>;
  text: string;
  raw: string;
}

export interface TestSmtp {
  url: string;
  messages: ReceivedMail[];
  /** refuse the next n messages with a temporary 451 (to exercise retries) */
  refuseNext(n: number): void;
  /**
   * Holds the first recipient command of a sender that matches (by the name it
   * greeted with, EHLO) unanswered: `reached` resolves when it arrives, and
   * `release()` then refuses it (451), e.g. after the sender was killed.
   */
  holdNext(match: (heloName: string) => boolean): { reached: Promise<void>; release(): void };
  /** resolves with the first message (already received or arriving) that matches */
  waitFor(match: (mail: ReceivedMail) => boolean, timeoutMs?: number): Promise<ReceivedMail>;
  stop(): Promise<void>;
}

/** A real SMTP server on 127.0.0.1 (the smtp-server package), collecting what it receives. */
export async function startTestSmtp(): Promise<TestSmtp> {
  const messages: ReceivedMail[] = [];
  let refusals = 0;
  let hold: { match: (heloName: string) => boolean; arrived: () => void; released: Promise<void> } | undefined;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onRcptTo(_address, session, callback) {
      if (hold?.match(session.hostNameAppearsAs)) {
        const { arrived, released } = hold;
        hold = undefined;
        arrived();
        void released.then(() => callback(Object.assign(new Error('Try again later'), { responseCode: 451 })));
        return;
      }
      if (refusals > 0) {
        refusals--;
        const error = new Error('Try again later') as Error & { responseCode: number };
        error.responseCode = 451;
        return callback(error);
      }
      callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        messages.push({
          ...parseMessage(raw),
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw,
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.server.address() as { port: number }).port;
  return {
    url: `smtp://127.0.0.1:${port}`,
    messages,
    refuseNext(n) {
      refusals = n;
    },
    holdNext(match) {
      let arrived!: () => void;
      let release!: () => void;
      const reached = new Promise<void>((r) => (arrived = r));
      hold = { match, arrived, released: new Promise<void>((r) => (release = r)) };
      return { reached, release };
    },
    waitFor: (match, timeoutMs = 15_000) => waitFor('a matching mail', () => messages.find(match), timeoutMs),
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Reads a single-part text message (what the mailer sends): unfolded headers and the decoded body. */
export function parseMessage(raw: string): { subject: string; headers: Record<string, string>; text: string } {
  const split = raw.search(/\r?\n\r?\n/);
  const head = raw.slice(0, split).replace(/\r?\n[ \t]+/g, ' ');
  const body = raw.slice(split).trim();
  const headers: Record<string, string> = {};
  for (const line of head.split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  const encoding = (headers['content-transfer-encoding'] ?? '7bit').toLowerCase();
  const text = encoding === 'base64' ? Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8') : body;
  return { subject: headers.subject ?? '', headers, text };
}

/** The token of the first /auth/<kind>/<token> link in a mail. */
export function linkToken(mail: { text: string }, kind: 'set-password' | 'reset-password'): string {
  const match = new RegExp(`/auth/${kind}/([A-Za-z0-9_-]+)`).exec(mail.text);
  if (!match) throw new Error(`no ${kind} link in: ${mail.text}`);
  return match[1];
}
