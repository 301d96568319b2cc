import type { LicenseType } from '#policies/roles';
import { EVALUATION_TERMS, termsFromPayload, type LicensePayload, type LicenseTerms } from './terms';

/**
 * The license state at a moment: a pure function of the installed payload,
 * the time, the grace period and the newest time the appliance has seen.
 *
 *   evaluation  no key installed: evaluation allowance, never read-only
 *   active      now < expiresAt
 *   grace       expiresAt <= now < expiresAt + grace: full service, warning flag
 *   expired     past the grace period: read-only
 *   clock_rollback  now is earlier than the newest time seen (minus tolerance):
 *               treated as expired, since turning the clock back is how an
 *               expiry would otherwise be dodged
 */
export type LicenseStatus = 'evaluation' | 'active' | 'grace' | 'expired' | 'clock_rollback';

export interface LicenseState {
  status: LicenseStatus;
  terms: LicenseTerms;
  evaluation: boolean;
  /** writes are refused (403 LICENSE_EXPIRED) */
  readOnly: boolean;
  /** the key is expired but still honoured: administrators should install a new one */
  warning: boolean;
  /** whole days until expiry (negative once past it); null in evaluation */
  daysToExpiry: number | null;
  /** when read-only mode starts (expiry + grace); null in evaluation */
  readOnlyAt: string | null;
  clockRollback: boolean;
}

/** The installation's license as the appliance honours it now: the state, plus where it comes from. */
export interface CurrentLicense extends LicenseState {
  installationId: string;
  installedAt: string | null;
  /** why an installed key is not honoured (e.g. a development key in production); null when fine */
  problem: string | null;
}

export interface EvaluateOptions {
  graceMs: number;
  /** newest time seen by this appliance (ISO), or null */
  newestSeen: string | null;
  /** how far the clock may go back before it counts as a rollback (NTP steps, DST mistakes) */
  toleranceMs: number;
}

const DAY = 86_400_000;

export function evaluateLicense(payload: LicensePayload | null, now: Date, options: EvaluateOptions): LicenseState {
  if (!payload) {
    return {
      status: 'evaluation',
      terms: EVALUATION_TERMS,
      evaluation: true,
      readOnly: false,
      warning: false,
      daysToExpiry: null,
      readOnlyAt: null,
      clockRollback: false,
    };
  }
  const terms: LicenseTerms = termsFromPayload(payload);
  const t = now.getTime();
  const expires = Date.parse(payload.expiresAt);
  const readOnlyAt = expires + options.graceMs;
  const rolledBack = options.newestSeen !== null && t < Date.parse(options.newestSeen) - options.toleranceMs;
  const status: LicenseStatus = rolledBack ? 'clock_rollback' : t < expires ? 'active' : t < readOnlyAt ? 'grace' : 'expired';
  return {
    status,
    terms,
    evaluation: false,
    readOnly: status === 'expired' || status === 'clock_rollback',
    warning: status !== 'active',
    daysToExpiry: Math.floor((expires - t) / DAY),
    readOnlyAt: new Date(readOnlyAt).toISOString(),
    clockRollback: rolledBack,
  };
}

/** One license type's seats within a client. */
export interface SeatCount {
  allocated: number;
  used: number;
  free: number;
}

/** One license type's seats over the whole appliance. */
export interface SeatUsage {
  total: number;
  /** seats allocated to clients (unexpired admin licenses) */
  allocated: number;
  /** users holding this license type */
  used: number;
  /** total − allocated: what can still be allocated to clients */
  unallocated: number;
}

/** The license in force and how much of it the clients use. */
export interface LicenseOverview {
  license: CurrentLicense;
  usage: { clients: { count: number; max: number }; seats: Record<LicenseType, SeatUsage> };
}

/** A client's view of the license: the appliance's state and its own seats. */
export interface ClientLicense {
  license: CurrentLicense;
  seats: Record<string, SeatCount>;
}
