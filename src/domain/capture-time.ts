// When something was captured on a device (issue 39, docs/records.md "Which time is which"). The app converts its
// clock to server time with the offset it measured at its last contact (the `Date` header), so a capture time is
// trusted within CAPTURE_SKEW_MS of what the server knows: not later than its own clock, not earlier than the thing
// it is about existed (the job's creation). One rule for step records, faults and job transitions.
import { validationFailed } from '#errors';

/**
 * How far a capture time may stray past a bound: the error of an offset measured from a `Date` header (whole
 * seconds, plus the request's latency) and a device clock drifting while offline, with room to spare.
 */
export const CAPTURE_SKEW_MS = 60_000;

export interface CaptureBounds {
  /** the server's clock now: the receipt time */
  now: Date;
  /** when what is recorded on came to exist: `at` (ISO) and `what` it is, e.g. the job and its createdAt */
  notBefore: { at: string; what: string };
}

/**
 * The capture time to store: `capturedAt` as UTC ISO, or the receipt time when none was sent.
 * @throws AppError VALIDATION_ERROR on `capturedAt` when it is later than `now` or earlier than `notBefore`, by more
 *   than CAPTURE_SKEW_MS
 */
export function captureTime(capturedAt: string | null | undefined, bounds: CaptureBounds): string {
  if (capturedAt == null) return bounds.now.toISOString();
  const at = Date.parse(capturedAt);
  const refuse = (message: string) => validationFailed({ fields: [{ path: 'capturedAt', message }] });
  if (!Number.isFinite(at)) throw refuse('must be an ISO-8601 date-time');
  if (at > bounds.now.getTime() + CAPTURE_SKEW_MS)
    throw refuse(`is in the future: later than the server's clock (${bounds.now.toISOString()}) by more than ${CAPTURE_SKEW_MS / 1000} s`);
  const { at: since, what } = bounds.notBefore;
  if (at < Date.parse(since) - CAPTURE_SKEW_MS)
    throw refuse(`is before ${what} existed (created ${since}) by more than ${CAPTURE_SKEW_MS / 1000} s`);
  return new Date(at).toISOString();
}
