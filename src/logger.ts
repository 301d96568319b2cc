import pino, { type Logger } from 'pino';
import type { Config } from './config';

export type { Logger };

/**
 * Structured JSON logs on stdout. Anything that can carry a credential is
 * redacted by path, so a careless log call cannot leak it.
 */
export const REDACT_PATHS = [
  'password',
  '*.password',
  'currentPassword',
  'newPassword',
  'token',
  '*.token',
  'refreshToken',
  '*.refreshToken',
  'accessToken',
  'licenseKey',
  '*.licenseKey',
  'secret',
  '*.secret',
  'jwtSecret',
  'cookieKeys',
  'vapid',
  'privateKey',
  '*.privateKey',
  'adminPassword',
  '*.adminPassword',
  'smtpUrl',
  '*.smtpUrl',
  'headers.authorization',
  'headers.cookie',
  'req.headers.authorization',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
];

export function createLogger(config: Pick<Config, 'logLevel'>, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level: config.logLevel,
      base: { service: 'wip' },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    },
    // Asynchronous writes to stdout: a synchronous write per request line costs
    // the event loop a syscall each; pino flushes what is buffered on exit.
    destination ?? pino.destination({ dest: 1, sync: false }),
  );
}
