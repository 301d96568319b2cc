import type { Kysely } from 'kysely';
import type { Deps } from '#deps';
import type { DB, DeploymentStateRow } from '#db/schema';
import { withTransaction } from '#db/transaction';
import { emitEvent } from '#events/emit';
import { licenseClientsExhausted, licenseInvalid, licenseSeatsExhausted } from '#errors';
import { checkInstallable, LicenseKeyError, verifyLicenseKey } from '#licensing/key';
import { evaluateLicense, type CurrentLicense, type LicenseOverview, type SeatUsage } from '#licensing/state';
export type { LicenseOverview } from '#licensing/state';
import { termsFromPayload, type LicensePayload, type LicenseTerms } from '#licensing/terms';
import { LICENSE_TYPES, type LicenseType } from '#policies/roles';
import { countClients } from '#repos/clients';
import { allocatedSeatsAcrossClients, usedSeatsAcrossClients } from '#repos/licensing/seat-allocations';
import { advanceNewestSeen, findInstalledLicenseById, getDeploymentState, insertInstalledLicense } from '#repos/licensing/index';
import { recordChange, recordLogEntry, type ChangedBy } from '../security-log';

export type { CurrentLicense } from '#licensing/state';

/** The newest time seen is written at most this often (one small write a minute, not one a request). */
const NEWEST_SEEN_STEP_MS = 60_000;

/** What reading the license needs (the doctor reads it without a full Deps, on a read-only connection). */
export type LicenseDeps = Pick<Deps, 'config' | 'clock' | 'logger' | 'licenseCache' | 'hotPath'> & { db: Pick<Deps['db'], 'kysely'> };

function allowDevelopmentKeys(deps: Pick<Deps, 'config'>): boolean {
  return deps.config.env === 'development' || deps.config.env === 'test';
}

async function loadInstalled(deps: LicenseDeps, state: DeploymentStateRow, db: Kysely<DB>) {
  const cache = deps.licenseCache;
  if (cache.loaded && cache.loaded.rowId === state.license_row_id) return cache.loaded;
  let loaded: NonNullable<typeof cache.loaded> = { rowId: state.license_row_id, payload: null, problem: null, installedAt: null };
  if (state.license_row_id !== null) {
    const row = await findInstalledLicenseById(db, state.license_row_id);
    if (row) {
      loaded.installedAt = row.installed_at;
      try {
        loaded.payload = verifyLicenseKey(row.license_key, {
          trustedKeys: cache.trustedKeys,
          allowDevelopmentKeys: allowDevelopmentKeys(deps),
          installationId: state.installation_id,
        });
      } catch (error) {
        if (!(error instanceof LicenseKeyError)) throw error;
        // e.g. a key signed with the development key while running in production
        loaded = { ...loaded, payload: null, problem: error.reason };
        deps.logger.warn({ reason: error.reason }, `installed license key not honoured: ${error.message}`);
      }
    }
  }
  cache.loaded = loaded;
  return loaded;
}

/** How currentLicense reads. */
export interface LicenseRead {
  /** see HotPathLookups.deploymentState (the license gate passes the request's) */
  checkedSince?: number;
  /**
   * The write transaction the caller is in. Its reads then go through it, and the newest time seen is left
   * to the next read outside: on SQLite the pool's one connection is the transaction's, so a read from the
   * pool would wait for it forever; on PostgreSQL transactions waiting for a second pooled connection can
   * starve the pool, and a write of the singleton state row would hold its lock until this commit.
   */
  trx?: Kysely<DB>;
}

/**
 * The license in force now: the installed key (verified once, then cached by
 * row id) or the evaluation allowance, evaluated against the clock and the
 * newest time seen. Cheap enough for every request: the state row comes from
 * the hot path's cache, and the evaluation is reused for a second. Inside a
 * write transaction, pass it (`read.trx`): the cache may be cold there (the
 * daemon's first round after a start), and nothing may then be read beside it.
 */
export async function currentLicense(deps: LicenseDeps, read: LicenseRead = {}): Promise<CurrentLicense> {
  const now = deps.clock.now();
  const t = now.getTime();
  const state = read.trx ? await getDeploymentState(read.trx) : await deps.hotPath.deploymentState(read.checkedSince);
  const cache = deps.licenseCache;
  const loaded = cache.loaded?.rowId === state.license_row_id ? cache.loaded : await loadInstalled(deps, state, read.trx ?? deps.db.kysely);
  let license = cache.evaluated;
  // The same state row (the hot path hands out one object until the database changes) evaluated
  // a moment ago, and no boundary (expiry, read-only) crossed since: the same answer.
  if (!license || license.state !== state || license.loaded !== loaded || t < license.at || t >= license.validUntil) {
    const evaluated = evaluateLicense(loaded.payload, now, {
      graceMs: deps.config.licenseGracePeriod,
      toleranceMs: deps.config.licenseClockTolerance,
      newestSeen: state.newest_seen_at,
    });
    const boundaries = loaded.payload ? [Date.parse(loaded.payload.expiresAt), Date.parse(evaluated.readOnlyAt!)].filter((b) => b > t) : [];
    license = cache.evaluated = {
      state,
      loaded,
      at: t,
      validUntil: Math.min(t + EVALUATION_REUSE_MS, ...boundaries),
      result: { ...evaluated, installationId: state.installation_id, installedAt: loaded.installedAt, problem: loaded.problem },
      newestSeenMs: state.newest_seen_at === null ? NaN : Date.parse(state.newest_seen_at),
    };
  }
  if (
    !read.trx &&
    !license.result.clockRollback &&
    (state.newest_seen_at === null || t - Date.parse(state.newest_seen_at) >= NEWEST_SEEN_STEP_MS)
  ) {
    try {
      await advanceNewestSeen(deps.db.kysely, now.toISOString());
    } catch (error) {
      // a busy database must not fail the request; the next one tries again
      deps.logger.warn({ err: error }, 'could not record the newest time seen');
    }
  }
  return license.result;
}

/**
 * currentLicense's answer without a promise, when it needs nothing read or
 * written: SQLite (the state row comes from the hot path's cache without
 * waiting), the same state row and installed key as the evaluation reused a
 * moment ago, no boundary crossed and no newest-time-seen step due. Undefined
 * otherwise: then currentLicense. (The license gate runs on every request.)
 */
export function settledLicense(deps: Deps, checkedSince?: number): CurrentLicense | undefined {
  const cache = deps.licenseCache;
  const license = cache.evaluated;
  if (!license || deps.db.dialect !== 'sqlite') return undefined;
  const state = deps.hotPath.deploymentState(checkedSince) as DeploymentStateRow;
  const t = deps.clock.now().getTime();
  if (license.state !== state || license.loaded !== cache.loaded || cache.loaded?.rowId !== state.license_row_id) return undefined;
  if (t < license.at || t >= license.validUntil) return undefined;
  if (!license.result.clockRollback && (state.newest_seen_at === null || t - license.newestSeenMs >= NEWEST_SEEN_STEP_MS)) return undefined;
  return license.result;
}

function installablePayload(deps: LicenseDeps, keyText: string, installationId: string, now: Date): LicensePayload {
  const payload = verifyLicenseKey(keyText, {
    trustedKeys: deps.licenseCache.trustedKeys,
    allowDevelopmentKeys: allowDevelopmentKeys(deps),
    installationId,
  });
  checkInstallable(payload, now);
  return payload;
}

/**
 * The terms a license key would install, checked exactly as installing checks
 * them, without installing it (the console shows them before the admin confirms).
 * @throws AppError LICENSE_INVALID (same reasons as installLicense)
 */
export async function previewLicense(deps: LicenseDeps, keyText: string): Promise<LicenseTerms> {
  const state = await getDeploymentState(deps.db.kysely);
  try {
    return termsFromPayload(installablePayload(deps, keyText, state.installation_id, deps.clock.now()));
  } catch (error) {
    if (!(error instanceof LicenseKeyError)) throw error;
    throw licenseInvalid(error.reason, error.message, error.hint);
  }
}

/** How long one evaluation of the license serves (days to expiry are whole days; boundaries end it sooner). */
const EVALUATION_REUSE_MS = 1000;

/**
 * Validates a license key and makes it the installed one. An invalid key
 * leaves the previous one in place.
 * @throws AppError LICENSE_INVALID with details.reason: malformed, unknown_key_id,
 *   bad_signature, wrong_deployment, expired, not_yet_valid
 */
export async function installLicense(deps: Deps, keyText: string, by: ChangedBy): Promise<LicenseOverview> {
  const now = deps.clock.now();
  const state = await getDeploymentState(deps.db.kysely);
  const via = by.actor.kind === 'cli' ? 'cli' : 'api';
  const adminId = by.actor.kind === 'admin' ? by.actor.id : null;
  let payload: LicensePayload;
  try {
    payload = installablePayload(deps, keyText, state.installation_id, now);
  } catch (error) {
    if (!(error instanceof LicenseKeyError)) throw error;
    await recordLogEntry(deps, {
      level: 'warn',
      event: 'license.install_failed',
      message: `License key refused: ${error.message}`,
      adminId,
      actor: by.actor,
      meta: by.meta,
      data: { reason: error.reason, via },
    });
    throw licenseInvalid(error.reason, error.message, error.hint);
  }
  const nowIso = now.toISOString();
  const { terms: previous } = await currentLicense(deps);
  // the terms, never the key itself: its id and signing key id identify it
  const termsOf = (t: LicenseTerms) =>
    t.evaluation
      ? { licenseId: null, licensee: 'evaluation', expiresAt: null }
      : {
          licenseId: t.licenseId,
          licensee: t.licensee?.name ?? null,
          expiresAt: t.expiresAt,
          seats: t.seats,
          maxClients: t.maxClients,
          features: t.features,
        };
  await withTransaction(deps.db, async (trx, afterCommit) => {
    await insertInstalledLicense(trx, {
      license_key: keyText.replace(/\s+/g, ''),
      kid: payload.kid,
      license_id: payload.licenseId,
      licensee: payload.licensee.name,
      expires_at: payload.expiresAt,
      installed_at: nowIso,
      installed_by: via === 'cli' ? `cli:${by.actor.name}` : `${by.actor.kind}:${by.actor.id ?? by.actor.name}`,
    });
    await emitEvent({ deps, trx, afterCommit }, null, 'license.installed', {
      licenseId: payload.licenseId,
      licensee: payload.licensee.name,
      expiresAt: payload.expiresAt,
      installedAt: nowIso,
    });
    await recordChange({ deps, trx, afterCommit }, by, {
      event: 'license.installed',
      message: `License ${payload.licenseId} for "${payload.licensee.name}" installed, valid until ${payload.expiresAt}`,
      target: { type: 'license_key', id: payload.licenseId },
      before: termsOf(previous),
      after: termsOf(termsFromPayload(payload)),
      data: { licenseId: payload.licenseId, kid: payload.kid, expiresAt: payload.expiresAt, via },
    });
  });
  return licenseOverview(deps);
}

/** The license in force and how much of it the clients use. */
export async function licenseOverview(deps: Deps): Promise<LicenseOverview> {
  const license = await currentLicense(deps);
  const nowIso = deps.clock.now().toISOString();
  const db = deps.db.kysely;
  const [count, allocated, used] = await Promise.all([
    countClients(db),
    allocatedSeatsAcrossClients(db, nowIso),
    usedSeatsAcrossClients(db),
  ]);
  const seats = {} as Record<LicenseType, SeatUsage>;
  for (const type of LICENSE_TYPES) {
    const total = license.terms.seats[type];
    const a = allocated.get(type) ?? 0;
    seats[type] = { total, allocated: a, used: used.get(type) ?? 0, unallocated: Math.max(0, total - a) };
  }
  return { license, usage: { clients: { count, max: license.terms.maxClients }, seats } };
}

/**
 * Refuses an allocation change that takes the sum of client allocations of a
 * type past the license total. Call inside the write transaction, after the
 * change, only for types whose allocation grew (an appliance that is already
 * over a smaller new key may still shrink allocations).
 * @throws AppError LICENSE_SEATS_EXHAUSTED
 */
export async function assertAllocationsWithinLicense(
  trx: Kysely<DB>,
  terms: LicenseTerms,
  nowIso: string,
  grownTypes: readonly string[],
): Promise<void> {
  if (grownTypes.length === 0) return;
  const allocated = await allocatedSeatsAcrossClients(trx, nowIso);
  for (const type of new Set(grownTypes)) {
    const total = terms.seats[type as LicenseType] ?? 0;
    const sum = allocated.get(type) ?? 0;
    if (sum > total) throw licenseSeatsExhausted(type, total, sum);
  }
}

/**
 * Refuses a new client beyond the license's maximum. Call inside the write
 * transaction, before inserting.
 * @throws AppError LICENSE_CLIENTS_EXHAUSTED
 */
export async function assertClientAllowed(trx: Kysely<DB>, terms: LicenseTerms): Promise<void> {
  if ((await countClients(trx)) >= terms.maxClients) throw licenseClientsExhausted(terms.maxClients);
}
