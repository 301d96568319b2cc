import type { Database } from '#db/connection';
import { readDataEpoch } from '#repos/data-epoch';

/**
 * The data epoch this process announces (Wip-Data-Epoch on every answer
 * under /api/client, `dataEpoch` of GET /api/client/version): read from the
 * database when the daemon starts. Only a restore changes it, and a restore
 * needs every daemon stopped, so the value read at the start holds.
 */
export class DataEpoch {
  private value: string | undefined;

  constructor(private readonly db: Database) {}

  /** The epoch, once loaded (undefined before: the header is then left out). */
  get current(): string | undefined {
    return this.value;
  }

  async load(): Promise<string | undefined> {
    this.value = await readDataEpoch(this.db.kysely);
    return this.value;
  }
}
