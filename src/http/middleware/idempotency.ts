import { createHash } from 'node:crypto';
import type { Middleware } from 'koa';
import { AppError, serviceUnavailable } from '#errors';
import { canonicalJson } from '#lib/canonical-json';
import { databaseErrorAnswer, isBusy } from '#db/transaction';
import { endUnit, runInUnit, type RequestUnit } from '#db/request-transaction';
import { claimIdempotencyKey, completeIdempotencyKey, releaseIdempotencyKey } from '#repos/idempotency';
import { readMultipart } from '../multipart';
import type { RouteSpec } from '../route-spec';
import type { AppContext, AppState } from '../state';

/** How long a first answer is kept for replay. */
export const IDEMPOTENCY_TTL_MS = 24 * 3_600_000;
const MAX_KEY_LENGTH = 255;
const SCOPED_PATH = /^\/api\/(client|admin)(\/|$)/;
/** Response headers an answer is replayed with besides its type. */
const KEPT_HEADERS = ['location', 'etag', 'content-disposition'] as const;
/** A resent multipart body is read (hashed, never stored) up to this size to compare it with the first. */
const REPLAY_READ_LIMIT = 1024 * 1024 * 1024;
/** Fingerprints of multipart bodies by content (their fields and files' SHA-256), not by type and size. */
const CONTENT_FINGERPRINT = 'v2:';

/**
 * Idempotency-Key (IETF httpapi draft) for every POST, PUT, PATCH and DELETE
 * route under /api/client and /api/admin, GraphQL mutations included. Mounted
 * per route after authentication and the gates, so the key belongs to a principal (user:<id>,
 * admin:<id>) and a refused request never takes it.
 *
 * Exactly once (docs/reliability.md):
 * - The key is taken "in progress" for this process, whose lease
 *   (runtime/key-leases.ts) is renewed every few seconds: a dead owner's key is
 *   released when its node starts again, or taken over once its lease ran out.
 * - The request runs in a unit of work (db/request-transaction.ts): its
 *   transactions are one, left open, and the answer (status, type, a few
 *   headers, body) is written into it and committed with the writes. A crash
 *   before that commit loses both, and the retry runs for the first time;
 *   after it, the retry gets the answer. A request that failed rolls back and
 *   frees its key, so a corrected retry runs.
 * A retry with the same key and body gets the first answer with
 * `Idempotency-Replayed: true` and runs nothing. Same key, other request →
 * 422 IDEMPOTENCY_KEY_REUSED; while the owner still works → 409
 * IDEMPOTENCY_IN_PROGRESS. Without the header nothing changes.
 */
export function idempotency(spec: Pick<RouteSpec, 'path' | 'method'>): Middleware<AppState> | undefined {
  if (spec.method === 'get' || !SCOPED_PATH.test(spec.path)) return undefined;
  return async (ctx, next) => {
    const key = ctx.get('idempotency-key');
    const actor = ctx.state.actor;
    if (!key || !actor) return next();
    if (key.length > MAX_KEY_LENGTH) {
      throw new AppError('IDEMPOTENCY_KEY_INVALID', `The Idempotency-Key header is longer than ${MAX_KEY_LENGTH} characters`, {
        maxLength: MAX_KEY_LENGTH,
      });
    }
    const { db, clock, keyLeases } = ctx.state.deps;
    const principal = actor.kind === 'user' ? `user:${actor.userId}` : `admin:${actor.adminId}`;
    await keyLeases.ready();
    const now = clock.now();
    const owner = keyLeases.owner;
    const existing = await claimIdempotencyKey(
      db.kysely,
      {
        principal,
        key,
        fingerprint: fingerprint(ctx),
        created_at: now.toISOString(),
        expires_at: new Date(now.getTime() + IDEMPOTENCY_TTL_MS).toISOString(),
      },
      owner,
    );
    if (existing) {
      if (existing.status === 'in_progress') {
        if (existing.fingerprint !== fingerprint(ctx)) throw keyReused();
        throw new AppError(
          'IDEMPOTENCY_IN_PROGRESS',
          'A request with this Idempotency-Key is still being processed; retry later',
          undefined,
          {
            headers: { 'Retry-After': 1 },
          },
        );
      }
      if (existing.fingerprint !== (await resentFingerprint(ctx, existing.fingerprint))) throw keyReused();
      replay(ctx, existing.response_status!, existing.response_body!);
      return;
    }
    const unit: RequestUnit = { db };
    try {
      try {
        await runInUnit(unit, next);
      } catch (error) {
        await endUnit(unit, false).catch(() => undefined);
        throw error;
      }
      const stored = storedResponse(ctx);
      if (stored) {
        const answer = {
          status: ctx.status,
          body: JSON.stringify(stored),
          // a multipart body has now been read: from here on it is known by its content
          ...(ctx.state.bodyDigest && { fingerprint: contentFingerprint(ctx, ctx.state.bodyDigest) }),
        };
        // the answer joins the request's open transaction, if it opened one: committed together, or not at all
        if (!(await completeIdempotencyKey(unit.open?.trx ?? db.kysely, principal, key, owner, answer))) {
          throw serviceUnavailable('This request took too long and another one took its Idempotency-Key over; try again');
        }
      }
      await endUnit(unit, true);
      crashAfterCommitForTests(ctx, key);
      // an answer that cannot be replayed (a 5xx, a stream): the writes stay, the key is freed
      if (!stored) await releaseIdempotencyKey(db.kysely, principal, key, owner);
    } catch (error) {
      await endUnit(unit, false).catch(() => undefined);
      await releaseIdempotencyKey(db.kysely, principal, key, owner).catch(() => undefined);
      throw databaseErrorAnswer(error) ?? (isBusy(error) ? serviceUnavailable('The database is busy; try again') : error);
    }
  };
}

function keyReused(): AppError {
  return new AppError('IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was used for a different request; use a new key for a new request');
}

function replay(ctx: AppContext, status: number, body: string): void {
  const stored = JSON.parse(body) as StoredResponse;
  ctx.status = status;
  ctx.body = stored.base64 === true ? Buffer.from(stored.body as string, 'base64') : stored.body;
  if (stored.type) ctx.type = stored.type;
  for (const [name, value] of Object.entries(stored.headers ?? {})) ctx.set(name, value);
  ctx.set('Idempotency-Replayed', 'true');
}

/**
 * What makes two requests "the same": method, path, query and body. JSON is
 * canonicalised; a multipart body is known by its type and size until it has
 * been read, then by its content (contentFingerprint).
 */
function fingerprint(ctx: AppContext): string {
  const parsed = (ctx.request as { body?: unknown }).body;
  const body =
    ctx.is('json') || parsed === undefined ? canonicalJson(parsed ?? null) : `${ctx.get('content-type')};${ctx.get('content-length')}`;
  return createHash('sha256').update(`${ctx.method} ${ctx.path}?${ctx.querystring}\n${body}`).digest('hex');
}

/** A multipart request by what it holds (readMultipart's digest), whatever its boundary. */
function contentFingerprint(ctx: AppContext, digest: string): string {
  return CONTENT_FINGERPRINT + createHash('sha256').update(`${ctx.method} ${ctx.path}?${ctx.querystring}\n${digest}`).digest('hex');
}

/**
 * The fingerprint of a resent request, comparable with `stored`: by content
 * when the first was stored so — the resent multipart body is then read and
 * hashed, its files kept nowhere.
 */
async function resentFingerprint(ctx: AppContext, stored: string): Promise<string> {
  if (!stored.startsWith(CONTENT_FINGERPRINT) || !ctx.is('multipart')) return fingerprint(ctx);
  let read = 0;
  const tooLarge = () => keyReused();
  await readMultipart(ctx, {
    budget: { remaining: REPLAY_READ_LIMIT, tooLarge },
    onFile: async ({ stream }) => {
      for await (const chunk of stream) {
        read += (chunk as Buffer).length;
        if (read > REPLAY_READ_LIMIT) throw tooLarge();
      }
    },
  });
  return contentFingerprint(ctx, ctx.state.bodyDigest ?? '');
}

/**
 * Test builds only: with WIP_ENV=test and WIP_TEST_CRASH_AFTER_COMMIT=<prefix>,
 * the process kills itself with SIGKILL right after committing the writes
 * and the answer of a request whose key starts with <prefix> — before a byte
 * of the answer is sent (test/cli/exactly-once-crash.test.ts).
 */
function crashAfterCommitForTests(ctx: AppContext, key: string): void {
  const prefix = process.env.WIP_TEST_CRASH_AFTER_COMMIT;
  if (prefix && ctx.state.deps.config.env === 'test' && key.startsWith(prefix)) process.kill(process.pid, 'SIGKILL');
}

/** A response as the key keeps it for replays: bytes (GraphQL answers are, see graphql/handler.ts) as base64. */
interface StoredResponse {
  type: string;
  body: unknown;
  base64?: true;
  headers?: Record<string, string>;
}

/** The response to keep, or undefined when it cannot be replayed (a 5xx, a stream): the key is released instead. */
function storedResponse(ctx: AppContext): StoredResponse | undefined {
  const body: unknown = ctx.body;
  if (ctx.status >= 500) return undefined;
  if (typeof body === 'object' && body !== null && !Buffer.isBuffer(body) && isStream(body)) return undefined;
  const headers: Record<string, string> = {};
  for (const name of KEPT_HEADERS) {
    const value = ctx.response.get(name);
    if (value) headers[name] = value;
  }
  const kept = Object.keys(headers).length > 0 ? { headers } : {};
  if (Buffer.isBuffer(body)) return { type: ctx.type, body: body.toString('base64'), base64: true, ...kept };
  return { type: ctx.type, body: body ?? null, ...kept };
}

function isStream(value: object): boolean {
  return typeof (value as { pipe?: unknown }).pipe === 'function';
}
