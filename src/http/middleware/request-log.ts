import pino from 'pino';
import type { Middleware } from 'koa';
import type { Config } from '#config';
import type { Logger } from '#logger';
import type { AppState } from '../state';

type Ctx = Parameters<Middleware<AppState>>[0];

/** Path parameters that carry a credential (reset links, invitations) never reach the log. */
const SECRET_PARAM = /token|secret|key|password|code/i;

/**
 * The `request` log line, one per request (subject to `requestLogSample`).
 *
 * It is the one log call made on every request, so it is built by hand rather
 * than through pino's object serialisation (in a CPU profile of the `me`
 * benchmark pino's call was the largest single cost of the request path; the
 * hand-built line costs about half as much): the same JSON line pino would write — level, time,
 * the logger's bindings (`service`), the allow-listed fields, `msg` — written
 * to the logger's own destination (asynchronous stdout, pino-pretty on a
 * terminal, a test's sink), only when the logger's level lets `info` through.
 * It carries only allow-listed fields, with credential path parameters
 * masked, so it needs no redaction.
 *
 * Sampling (`requestLogSample` < 1) keeps every line of a request that failed
 * (status ≥ 400) or was slow (`requestLogSlow`), and a fixed share of the
 * rest: every n-th, deterministically, so a sample of 0.1 is exactly one in ten.
 */
export function requestLog(
  logger: Logger,
  config: Pick<Config, 'requestLogSample' | 'requestLogSlow'>,
): (ctx: Ctx, seconds: number) => void {
  const symbols = pino.symbols as unknown as Record<'streamSym' | 'chindingsSym', symbol>;
  const target = logger as unknown as Record<symbol, unknown>;
  const stream = target[symbols.streamSym] as { write(line: string): unknown };
  const head = `{"level":${logger.levels.values.info ?? 30}`;
  const bindings = (target[symbols.chindingsSym] as string | undefined) ?? '';
  const sample = config.requestLogSample;
  const slowSeconds = config.requestLogSlow / 1000;
  let owed = 0;
  let timeMs = 0;
  let timeField = '';
  return (ctx, seconds) => {
    if (!logger.isLevelEnabled('info')) return;
    const status = ctx.status;
    if (sample < 1 && status < 400 && seconds < slowSeconds) {
      owed += sample;
      if (owed < 1) return;
      owed -= 1;
    }
    // pino's isoTime, computed once per millisecond
    const now = Date.now();
    if (now !== timeMs) {
      timeMs = now;
      timeField = `,"time":"${new Date(now).toISOString()}"`;
    }
    const state = ctx.state;
    const actor = state.actor;
    const who =
      actor === undefined
        ? ''
        : actor.kind === 'user'
          ? `,"clientId":${actor.clientId},"userId":${actor.userId}`
          : `,"adminId":${actor.adminId}`;
    const route = state.routePath;
    stream.write(
      // the request id (a UUID or an incoming id of SAFE_ID's characters) and the method (an HTTP token) need no escaping
      `${head}${timeField}${bindings},"requestId":"${state.requestId}","method":"${ctx.req.method}",` +
        `"route":${route === undefined ? 'null' : JSON.stringify(route)},"path":${JSON.stringify(loggedPath(ctx))},` +
        `"status":${status},"ms":${seconds * 1000}${who},"msg":"request"}\n`,
    );
  };
}

function loggedPath(ctx: Ctx): string {
  const params = (ctx as { params?: Record<string, string> }).params;
  let path = ctx.path;
  if (!params) return path;
  for (const name in params) {
    const value = params[name];
    if (value && SECRET_PARAM.test(name)) path = path.split(encodeURIComponent(value)).join('[redacted]').split(value).join('[redacted]');
  }
  return path;
}
