/**
 * Records read from the store and kept in this process's memory, trusted only while the process
 * hears of every change to them (change-listener.ts) and for at most `maxAgeMs` after the read that found
 * them: a change empties what is kept, in the process that made it at once and in every other when
 * its notification arrives, and the age bounds what a notification lost on a connection that looks
 * alive could cost. While not listening, nothing is kept and every read goes to the store. At most
 * `maxEntries` are kept: past it, the one kept longest goes first. Reads of a key that find nothing
 * kept share one load: when what is kept ages out under load, every request arriving meanwhile
 * would otherwise run the same read of the store at once.
 */
import type pg from 'pg';
import type { ChangeListener } from './change-listener.js';
import type { PostgresDatabase } from './database.js';

/** When a read began, for keeping what it found: `keep` refuses it if a change was heard since. */
export interface ReadMark {
  readonly generation: number;
  readonly readAt: number;
}

/** Runs a change to what is kept in a transaction that tells every process keeping it. */
export type Changing = <T>(work: (client: pg.PoolClient) => Promise<T>) => Promise<T>;

export class NotifiedCache<V> {
  private readonly entries = new Map<string, { value: V; readAt: number }>();
  /** The loads under way, by key, with the generation each began in. */
  private readonly loading = new Map<string, { generation: number; value: Promise<V | undefined> }>();
  /** Moves with every forgetting, so that a read under way meanwhile keeps nothing. */
  private generation = 0;

  /** Trusted while `changes` listens on `channel`; forgotten on each of its notifications. */
  constructor(
    private readonly database: PostgresDatabase,
    private readonly changes: ChangeListener,
    private readonly channel: string,
    private readonly maxAgeMs: number,
    private readonly maxEntries = Infinity,
  ) {
    changes.on(channel, () => this.forget());
  }

  /** Runs a change to what is kept in a transaction that notifies every process, then forgets here. */
  readonly changing: Changing = async (work) => {
    try {
      return await this.database.transaction(async (client) => {
        const done = await work(client);
        await client.query(`NOTIFY ${this.channel}`);
        return done;
      });
    } finally {
      // Even when the commit's answer was lost: the change may have been made.
      this.forget();
    }
  };

  /** What is kept under `key`, or else what `load` finds, kept unless a change was heard meanwhile. */
  async read(key: string, load: () => Promise<V | undefined>): Promise<V | undefined> {
    const found = this.get(key);
    if (found) return found.value;
    // A load begun before a change was heard may miss it: a read after the change waits for its own.
    const under = this.loading.get(key);
    if (under !== undefined && under.generation === this.generation) return under.value;
    const since = this.mark();
    const value = load().then((loaded) => {
      if (loaded !== undefined) this.keep(since, key, loaded);
      return loaded;
    });
    const entry = { generation: since.generation, value };
    this.loading.set(key, entry);
    try {
      return await value;
    } finally {
      if (this.loading.get(key) === entry) this.loading.delete(key);
    }
  }

  /** What is kept under `key`, while it may be trusted (listening, and young enough). */
  get(key: string): { value: V } | undefined {
    this.changes.start();
    if (!this.changes.listening) return undefined;
    const found = this.entries.get(key);
    if (found === undefined || performance.now() - found.readAt < this.maxAgeMs) return found;
    this.entries.delete(key);
    return undefined;
  }

  /** Taken before a read of the store whose findings are to be kept. */
  mark(): ReadMark {
    return { generation: this.generation, readAt: performance.now() };
  }

  /** Keeps what a read begun at `since` found, unless a change was heard since or nobody listens. */
  keep(since: ReadMark, key: string, value: V): void {
    if (since.generation !== this.generation || !this.changes.listening) return;
    // A Map iterates in the order of insertion: its first key is the one kept longest.
    if (this.entries.size >= this.maxEntries && !this.entries.has(key))
      this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(key, { value, readAt: since.readAt });
  }

  forget(): void {
    this.generation += 1;
    this.entries.clear();
  }
}
