import type { TrustedKeys } from './key';
import type { LicensePayload } from './terms';

/**
 * The daemon's long-lived licensing memory (one per Deps): the trusted keys and
 * the last verified installed key. The database stays the source of truth; the
 * cache only avoids verifying the same signature on every request, and is
 * keyed by the installed row id, so a key installed by another process (the
 * CLI) is picked up on the next request.
 */
export class LicenseCache {
  loaded: { rowId: number | null; payload: LicensePayload | null; problem: string | null; installedAt: string | null } | undefined;
  constructor(readonly trustedKeys: TrustedKeys) {}
}
