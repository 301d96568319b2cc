/**
 * The device's idea of the server's clock: the offset between the two,
 * measured from the `Date` header of every answer the sync engine gets (the
 * server sends its own clock there). A value entered offline carries its entry
 * time converted with the offset of the last contact (`capturedAt`), so a
 * tablet whose clock is wrong, or that syncs an hour later, still records when
 * the operator really entered the value — in the server's time.
 */
export interface ServerClock {
  /** What every answer says about the server: its clock and its data epoch. */
  noteAnswer: (headers: { get(name: string): string | null }, sentAt: number, answeredAt: number) => void;
  /** Now, on the server's clock as last measured (the device's own clock if it never reached the server). */
  serverNow: () => string;
  /** The server's data epoch as its last answer said (null before any answer). */
  serverEpoch: () => string | null;
  /** Called when an answer announces another epoch than the last one (or the first). */
  onEpochNoted: (listener: () => void) => () => void;
}

export interface ServerClockDeps {
  /** the device's clock, in ms */
  now: () => number;
  /** the offset kept from an earlier page (localStorage in the app), if any */
  load?: () => number | undefined;
  save?: (offsetMs: number) => void;
}

export function createServerClock({ now, load = () => undefined, save = () => undefined }: ServerClockDeps): ServerClock {
  let offsetMs: number | undefined;
  /** the data epoch of the last answer (Wip-Data-Epoch): a restore replaces it (docs/reliability.md) */
  let epoch: string | null = null;
  const epochListeners = new Set<() => void>();
  return {
    noteAnswer(headers, sentAt, answeredAt) {
      const announced = headers.get('wip-data-epoch');
      if (announced && announced !== epoch) {
        epoch = announced;
        for (const listener of [...epochListeners]) listener();
      }
      const server = Date.parse(headers.get('date') ?? '');
      if (!Number.isFinite(server)) return;
      // the header drops the milliseconds: the server's time is within the second after it, never before it, so a
      // capture time converted with this offset is never later than the truth (measured at the middle of the round trip)
      offsetMs = server - (sentAt + answeredAt) / 2;
      save(Math.round(offsetMs));
    },
    serverNow() {
      offsetMs ??= load() ?? 0;
      return new Date(now() + offsetMs).toISOString();
    },
    serverEpoch: () => epoch,
    onEpochNoted(listener) {
      epochListeners.add(listener);
      return () => epochListeners.delete(listener);
    },
  };
}
