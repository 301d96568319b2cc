import type { TrustedKeys } from './key';
import type { LicensePayload } from './terms';
import type { DeploymentStateRow } from '#db/schema';
import type { CurrentLicense } from './state';

type Loaded = { rowId: number | null; payload: LicensePayload | null; problem: string | null; installedAt: string | null };

/**
 * The daemon's long-lived licensing memory (one per Deps): the trusted keys and
 * the last verified installed key. The database stays the source of truth; the
 * cache only avoids verifying the same signature on every request, and is
 * keyed by the installed row id, so a key installed by another process (the
 * CLI) is picked up on the next request.
 */
export class LicenseCache {
  loaded: Loaded | undefined;
  /** the last evaluation: of which state row and key, when, and until when it holds */
  evaluated:
    | {
        state: DeploymentStateRow;
        loaded: Loaded;
        at: number;
        validUntil: number;
        result: CurrentLicense;
        /** the state row's newest_seen_at in ms (NaN for none): parsed once, compared on every request */
        newestSeenMs: number;
      }
    | undefined;
  constructor(readonly trustedKeys: TrustedKeys) {}
}
