import type { Deps } from '#deps';
import { outboundRequest } from '#lib/outbound-http';
import { acceptTimestampResponse, timestampRequest } from '#lib/timestamp-token';
import { checkpointsWithoutTimestamp, recordTimestampAttempt } from '#repos/audit-checkpoints';

/**
 * RFC 3161 timestamps from the plant's own authority (`timestampAuthorityUrl`). Asking never blocks what is being signed: an authority that is
 * unreachable, slow or answers nonsense yields an error the caller keeps (a
 * checkpoint is retried by the maintenance round; a bundle is delivered
 * without a token), never a failed write.
 */

const TIMEOUT_MS = 5_000;
const MAX_RESPONSE_BYTES = 64 * 1024;
/** a checkpoint whose token could not be had is retried this many times (hourly rounds), then left without one */
export const MAX_TIMESTAMP_ATTEMPTS = 48;

/** A verified token over `signature`, an error naming why there is none, or null when no authority is configured. */
export async function timestampSignature(
  deps: Deps,
  signature: string,
): Promise<{ token: string; authority: string } | { error: string } | null> {
  const url = deps.config.timestampAuthorityUrl;
  if (!url) return null;
  try {
    const { der, nonce } = await timestampRequest(signature);
    const response = await outboundRequest({
      url: new URL(url),
      method: 'POST',
      headers: { 'content-type': 'application/timestamp-query', accept: 'application/timestamp-reply' },
      body: Buffer.from(der),
      timeoutMs: TIMEOUT_MS,
      maxResponseBytes: MAX_RESPONSE_BYTES,
    });
    if (response.status !== 200) throw new Error(`the authority answered HTTP ${response.status}`);
    const accepted = await acceptTimestampResponse(new Uint8Array(response.body), signature, nonce);
    if (!accepted.ok) throw new Error(accepted.problem);
    return { token: accepted.token, authority: url };
  } catch (error) {
    const message = (error as Error).message;
    deps.logger.warn({ err: { message }, authority: url }, 'no timestamp token from the time-stamping authority; checkpoints retry later');
    return { error: message };
  }
}

/** The maintenance round: asks again for the tokens of checkpoints made while the authority was unreachable. */
export async function retryCheckpointTimestamps(deps: Deps): Promise<number> {
  if (!deps.config.timestampAuthorityUrl) return 0;
  let stamped = 0;
  for (const row of await checkpointsWithoutTimestamp(deps.db.kysely, MAX_TIMESTAMP_ATTEMPTS, 50)) {
    const signature = (JSON.parse(row.jws) as { signature: string }).signature;
    const stamp = await timestampSignature(deps, signature);
    if (!stamp) break;
    await recordTimestampAttempt(deps.db.kysely, row.id, stamp);
    if ('token' in stamp) stamped++;
    else break; // still unreachable: the next round tries again
  }
  return stamped;
}
