/**
 * Autosave of a draft with its optimistic revision. Each change schedules a
 * save (debounced); one save is in flight at a time, and it names the
 * revision the author's copy is at (`expectedRevision`). The server answers
 * the new revision, or:
 *  - CONFLICT: someone else saved the draft meanwhile. Autosave stops — it
 *    never retries over their work — and the editor shows the conflict until
 *    the author chooses (take theirs, or keep theirs in view and save theirs
 *    over with `overwrite(currentRevision)`).
 *  - VALIDATION_ERROR: the problems by document path, shown at their inputs;
 *    the next change tries again.
 *  - anything else (network, 5xx): retried with a growing pause; the
 *    author's copy stays in the page meanwhile.
 */

export interface Problem {
  path: string;
  message: string;
}

/** What an answer's error carries (the app's ApiError, or a GraphQL error's extensions). */
export interface SaveFailure {
  code: string;
  message: string;
  fields?: Problem[];
  details?: Record<string, unknown>;
}

export type AutosaveStatus = 'saved' | 'pending' | 'saving' | 'invalid' | 'conflict' | 'failed';

export interface ConflictInfo {
  currentRevision: number;
  updatedBy: number | null;
  updatedAt: string | null;
}

export interface AutosaveState {
  status: AutosaveStatus;
  revision: number;
  problems: Problem[];
  conflict: ConflictInfo | null;
  savedAt: Date | null;
  message: string | null;
}

export interface AutosaveOptions<D> {
  /** saves `doc` at `expectedRevision`; resolves with the new revision or rejects with a SaveFailure */
  save(doc: D, expectedRevision: number): Promise<{ revision: number }>;
  onState(state: AutosaveState): void;
  /** the pause after the last change before saving */
  delayMs?: number;
  /** the first pause before retrying a save that did not get through (doubling, at most 30 s) */
  retryMs?: number;
}

export function asFailure(error: unknown): SaveFailure {
  if (error && typeof error === 'object' && typeof (error as SaveFailure).code === 'string') return error as SaveFailure;
  return { code: 'NETWORK', message: error instanceof Error ? error.message : String(error) };
}

export class Autosave<D> {
  private state: AutosaveState;
  private latest: D | null = null;
  /** bumped by every change: a save that finishes after later changes leaves the state "pending" */
  private generation = 0;
  private savedGeneration = 0;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private inFlight: Promise<void> | null = null;
  private retries = 0;
  private disposed = false;

  constructor(
    revision: number,
    private readonly options: AutosaveOptions<D>,
  ) {
    this.state = { status: 'saved', revision, problems: [], conflict: null, savedAt: null, message: null };
  }

  get current(): AutosaveState {
    return this.state;
  }

  /** Whether the author has changes the server does not have. */
  get dirty(): boolean {
    return this.generation !== this.savedGeneration;
  }

  change(doc: D): void {
    this.latest = doc;
    this.generation++;
    if (this.state.status === 'conflict') return; // held until the author chooses
    this.set({ status: this.inFlight ? 'saving' : 'pending' });
    this.schedule(this.options.delayMs ?? 800);
  }

  /** Saves now what is pending (leaving the page, submitting). Resolves when the server has it or refused it. */
  async flush(): Promise<AutosaveState> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.inFlight) await this.inFlight;
    if (this.dirty && this.state.status !== 'conflict') await this.run();
    return this.state;
  }

  /**
   * After a conflict: the author took the other version (`doc` is theirs, at
   * `revision`) — nothing of ours is pending any more.
   */
  adopt(revision: number): void {
    this.savedGeneration = this.generation;
    this.set({ status: 'saved', revision, conflict: null, problems: [], message: null });
  }

  /** After a conflict: the author read the other version and keeps theirs, saved over it at `revision`. */
  overwrite(revision: number): Promise<AutosaveState> {
    this.set({ status: 'pending', revision, conflict: null, message: null });
    return this.flush();
  }

  dispose(): void {
    this.disposed = true;
    if (this.timer) clearTimeout(this.timer);
  }

  private schedule(delay: number): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.run();
    }, delay);
  }

  private async run(): Promise<void> {
    if (this.disposed || this.latest === null || !this.dirty || this.state.status === 'conflict') return;
    if (this.inFlight) {
      // one save at a time: the next starts when this one is answered
      await this.inFlight;
      return this.run();
    }
    const doc = this.latest;
    const generation = this.generation;
    this.set({ status: 'saving' });
    this.inFlight = (async () => {
      try {
        const { revision } = await this.options.save(doc, this.state.revision);
        this.retries = 0;
        this.savedGeneration = generation;
        this.set({ status: this.dirty ? 'pending' : 'saved', revision, problems: [], savedAt: new Date(), message: null });
      } catch (error) {
        this.fail(asFailure(error));
      }
    })();
    try {
      await this.inFlight;
    } finally {
      this.inFlight = null;
    }
    if (this.dirty && this.state.status === 'pending') this.schedule(this.options.delayMs ?? 800);
  }

  private fail(failure: SaveFailure): void {
    if (failure.code === 'CONFLICT') {
      const d = failure.details ?? {};
      this.set({
        status: 'conflict',
        conflict: {
          currentRevision: Number(d.currentRevision),
          updatedBy: typeof d.updatedBy === 'number' ? d.updatedBy : null,
          updatedAt: typeof d.updatedAt === 'string' ? d.updatedAt : null,
        },
        message: failure.message,
      });
    } else if (failure.code === 'VALIDATION_ERROR') {
      this.set({ status: 'invalid', problems: failure.fields ?? [], message: failure.message });
    } else {
      this.set({ status: 'failed', message: failure.message });
      // a lost connection or a busy server: try again, less often each time (at most every 30 s)
      this.retries++;
      if (!this.disposed) this.schedule(Math.min(30_000, (this.options.retryMs ?? 1000) * 2 ** (this.retries - 1)));
      // a retry is a save like any other: it goes through run()'s checks
    }
  }

  private set(change: Partial<AutosaveState>): void {
    this.state = { ...this.state, ...change };
    if (!this.disposed) this.options.onState(this.state);
  }
}
