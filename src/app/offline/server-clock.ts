/**
 * The device's idea of the server's clock: the offset between the two,
 * measured from the `Date` header of every answer the sync engine gets (the
 * server sends its own clock there). A value entered offline carries its entry
 * time converted with the offset of the last contact (`capturedAt`), so a
 * tablet whose clock is wrong, or that syncs an hour later, still records when
 * the operator really entered the value — in the server's time.
 */
const KEY = 'wip-server-clock-offset';

function stored(): number {
  try {
    const value = Number(localStorage.getItem(KEY));
    return Number.isFinite(value) ? value : 0;
  } catch {
    return 0;
  }
}

let offsetMs: number | undefined;
/** the data epoch of the last answer (Wip-Data-Epoch): a restore replaces it (docs/reliability.md) */
let epoch: string | null = null;
const epochListeners = new Set<() => void>();

/** The server's data epoch as its last answer said (null before any answer of this page). */
export const serverEpoch = (): string | null => epoch;

/** Called when an answer announces another epoch than the last one (or the first of this page). */
export function onEpochNoted(listener: () => void): () => void {
  epochListeners.add(listener);
  return () => epochListeners.delete(listener);
}

/** What every answer says about the server: its clock (`Date`, whole seconds, against the device's clock at the middle of the round trip) and its data epoch. */
export function noteAnswer(response: Response, sentAt: number, answeredAt: number): void {
  const announced = response.headers.get('wip-data-epoch');
  if (announced && announced !== epoch) {
    epoch = announced;
    for (const listener of [...epochListeners]) listener();
  }
  const server = Date.parse(response.headers.get('date') ?? '');
  if (!Number.isFinite(server)) return;
  // the header drops the milliseconds: the server's time is within the second after it, never before it, so a
  // capture time converted with this offset is never later than the truth
  offsetMs = server - (sentAt + answeredAt) / 2;
  try {
    localStorage.setItem(KEY, String(Math.round(offsetMs)));
  } catch {
    // storage full or denied: the offset still holds for this page
  }
}

/** Now, on the server's clock as last measured (the device's own clock if it never reached the server). */
export function serverNow(): string {
  offsetMs ??= stored();
  return new Date(Date.now() + offsetMs).toISOString();
}
