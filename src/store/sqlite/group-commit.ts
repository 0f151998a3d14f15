/**
 * Group commit: the writes of one turn of the event loop share one transaction, committed once
 * the turn's callbacks have run (`setImmediate`), and every store call of the turn is answered
 * only once it has committed. A commit writes each page the transaction changed to the
 * write-ahead log once, so writes that arrive together (the tail of the audit log, of each
 * index) write their shared pages once between them instead of once each.
 *
 * Each write keeps its own transaction as a savepoint inside the turn's (better-sqlite3 nests a
 * transaction function so): a write that fails is undone alone, and the others commit. A commit
 * that fails (a full disk) undoes the turn's writes, and every call waiting on it fails with it,
 * so no call answers with what did not last. A read in a turn with writes sees them, and waits
 * for their commit too, so that it never shows what a failed commit then undid.
 *
 * The store's writes and its answer to a call happen in one turn (its methods do their work
 * synchronously between awaits that do not wait on anything outside), which is what lets a call
 * wait for the commit of the transaction open when it answers, not one it joined earlier.
 */
import type Database from 'better-sqlite3';

/**
 * The turns open on each file, in this process. Two connections of one process to one file (a
 * second store, as the tests of several processes make) must not wait on each other: the second
 * would wait for the write lock holding the event loop, so the first's commit could never run.
 * A connection about to open its turn's transaction commits the others' first.
 */
const OPEN_ON_FILE = new Map<string, Set<GroupCommit>>();

export class GroupCommit {
  private turn: { committed: Promise<void>; resolve: () => void; reject: (error: unknown) => void } | undefined;
  private readonly afterCommit: (() => void)[] = [];

  /** `file`: the database's path, which other connections of this process may open too (none for `:memory:`). */
  constructor(
    private readonly db: Database.Database,
    private readonly file?: string,
  ) {
    const transaction = db.transaction.bind(db);
    // Every transaction function of the store opens the turn's transaction first, and runs in it.
    db.transaction = ((fn: (...args: unknown[]) => unknown) => {
      const inner = transaction(fn);
      const joined = (...args: unknown[]) => {
        this.join();
        return inner(...args);
      };
      return Object.assign(joined, { deferred: joined, immediate: joined, exclusive: joined, default: joined });
    }) as unknown as typeof db.transaction;
  }

  /** Opens the turn's transaction, unless one is open, taking the write lock at once. */
  join(): void {
    if (this.turn !== undefined || this.db.inTransaction) return;
    if (this.file !== undefined) for (const other of [...(OPEN_ON_FILE.get(this.file) ?? [])]) other.commit();
    this.db.exec('BEGIN IMMEDIATE');
    let resolve!: () => void;
    let reject!: (error: unknown) => void;
    const committed = new Promise<void>((yes, no) => {
      resolve = yes;
      reject = no;
    });
    // A call that is not waiting when a commit fails must not leave the rejection unhandled.
    committed.catch(() => undefined);
    this.turn = { committed, resolve, reject };
    if (this.file !== undefined) {
      const open = OPEN_ON_FILE.get(this.file);
      if (open === undefined) OPEN_ON_FILE.set(this.file, new Set([this]));
      else open.add(this);
    }
    setImmediate(() => this.commit());
  }

  /** What a call waits for before it answers: the commit of the turn's transaction, when one is open. */
  settled(): Promise<void> | undefined {
    return this.turn?.committed;
  }

  /** Runs `then` once what is written so far has committed: at once when nothing waits to be. */
  whenCommitted(then: () => void): void {
    if (this.turn === undefined) then();
    else this.afterCommit.push(then);
  }

  /**
   * Commits the turn's transaction now: at the turn's end, when the store closes, or before
   * another connection of this process to the file writes.
   */
  commit(): void {
    const turn = this.turn;
    if (turn === undefined) return;
    this.turn = undefined;
    const open = this.file === undefined ? undefined : OPEN_ON_FILE.get(this.file);
    open?.delete(this);
    if (open?.size === 0) OPEN_ON_FILE.delete(this.file as string);
    try {
      this.db.exec('COMMIT');
    } catch (error) {
      if (this.db.inTransaction) this.db.exec('ROLLBACK');
      this.afterCommit.length = 0;
      turn.reject(error);
      return;
    }
    try {
      for (const then of this.afterCommit.splice(0)) then();
    } catch (error) {
      turn.reject(error);
      return;
    }
    turn.resolve();
  }
}
