// When something was captured on a device (docs/records.md "Which time is which"). The app converts its
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

/** How long after its capture a record may reach the server and still count as entered online (the PDF's mark). */
export const SYNCED_LATE_MS = 60_000;

/** Whether a record reached the server more than a minute after it was entered: entered offline, synced later. */
export const enteredOffline = (record: { capturedAt: string; receivedAt: string }): boolean =>
  Date.parse(record.receivedAt) - Date.parse(record.capturedAt) > SYNCED_LATE_MS;

/**
 * Each step's duration from capture times (receipt times would measure the sync, not the work): from the previous
 * entry in capture order — or the job's start — to the step's own entry. Steps without a record have none.
 */
export function stepDurations(startedAt: string | null, records: readonly { stepId: string; capturedAt: string }[]): Map<string, number> {
  const ordered = [...records].sort((a, b) => Date.parse(a.capturedAt) - Date.parse(b.capturedAt));
  const durations = new Map<string, number>();
  let previous = startedAt === null ? null : Date.parse(startedAt);
  for (const { stepId, capturedAt } of ordered) {
    const at = Date.parse(capturedAt);
    if (previous !== null) durations.set(stepId, Math.max(0, at - previous));
    previous = previous === null ? at : Math.max(previous, at);
  }
  return durations;
}

/** A duration as people read it in a report: "2 h 5 min", "4 min 10 s", "12 s". */
export function durationText(ms: number): string {
  const seconds = Math.round(ms / 1000);
  const [h, m, s] = [Math.floor(seconds / 3600), Math.floor((seconds % 3600) / 60), seconds % 60];
  if (h > 0) return `${h} h ${m} min`;
  if (m > 0) return s > 0 ? `${m} min ${s} s` : `${m} min`;
  return `${s} s`;
}
