/**
 * The SQLite connection as every kind of record uses it: one better-sqlite3 connection (calls are
 * synchronous, so each method and each transaction runs with no other request's statements in
 * between), statements prepared once and reused (preparing costs more than running them), the
 * audit entry each write records, and the preconditions of If-Match.
 */
import type Database from 'better-sqlite3';
import type { AuditAction, AuditContext } from '../../domain/audit.js';
import type { ConsentTransition } from '../../domain/consent.js';
import { eventTypeOf } from '../../domain/events.js';
import { requireVersion, type IfVersion } from '../ports/versions.js';
import type { Sql } from '../sql/builder.js';
import type { Row } from '../sql/rows.js';
import { GroupCommit } from './group-commit.js';
import { onLoopReads, type OffLoopReads } from './off-loop-reads.js';

/** What `record` records: one change to one resource. */
export interface AuditedChange {
  action: AuditAction;
  resourceType: string;
  resourceId: string;
  /** The user the resource is about; null for one about none (a webhook, a product, an API key). */
  userId: string | null;
  /** Of a newsletter consent's change, what it was. */
  consent?: ConsentTransition | null;
}

/** What `deleteRow` deletes, with which statements, and how it records it. */
export interface RowDeletion {
  /** Reads the row's version, with `keys`. */
  version: Database.Statement;
  /** Deletes the row, with `keys`. */
  remove: Database.Statement;
  keys: unknown[];
  ifVersion: IfVersion;
  /** Records the deletion in the audit trail, once the row is gone. */
  record: () => void;
  /** Run first, with the same keys: they remove what names the row without a foreign key. */
  dependents?: readonly Database.Statement[];
}

/**
 * How long a process trusts the data version it last read (`SqliteDatabase.dataVersion`): what it
 * keeps from the database (credentials, licensed domains, seat holders, prefix lengths in use) sees
 * a commit of another connection (another process, the command line) within this; its own
 * connection's changes it forgets at once.
 */
export const DATA_VERSION_MAX_AGE_MS = 100;

export class SqliteDatabase {
  private readonly prepared = new Map<string, Database.Statement>();
  private readonly insertAudit: Database.Statement;
  private readonly readDataVersion: Database.Statement;
  private dataVersionRead: { version: unknown; at: number } | undefined;

  /** Where the counts as long as a table are read: a worker's connection, for a database in a file. */
  readonly longReads: OffLoopReads;

  constructor(
    readonly db: Database.Database,
    longReads: OffLoopReads | undefined,
    /** The turn's transaction the writes share (group-commit.ts). */
    readonly group: GroupCommit,
  ) {
    this.longReads =
      longReads ??
      onLoopReads(
        (query) => this.all(query),
        (run) => db.transaction(run)(),
      );
    this.readDataVersion = db.prepare('PRAGMA data_version').pluck();
    this.insertAudit = db.prepare(`
      INSERT INTO audit_log (actor, action, resource_type, resource_id, user_id, attributes, event_type, consent_change)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?)`);
  }

  /**
   * SQLite's data version (it moves whenever another connection commits), read again once the last
   * reading is DATA_VERSION_MAX_AGE_MS old: reading it on every request cost as much as reading a
   * row by its key, and a request reads it for each thing it keeps.
   */
  dataVersion(): unknown {
    const now = performance.now();
    const last = this.dataVersionRead;
    if (last !== undefined && now - last.at < DATA_VERSION_MAX_AGE_MS) return last.version;
    const version = this.readDataVersion.get();
    this.dataVersionRead = { version, at: now };
    return version;
  }

  /** A statement built from fragments, prepared on first use and kept (there are few shapes of each). */
  statement(query: Sql): { statement: Database.Statement; values: unknown[] } {
    const { text, values } = query.render('sqlite');
    let statement = this.prepared.get(text);
    if (!statement) {
      statement = this.db.prepare(text);
      this.prepared.set(text, statement);
    }
    return { statement, values };
  }

  /**
   * Copies the write-ahead log into the file and truncates it, so that what was deleted is in
   * neither, once the turn's writes have committed (inside its transaction they would stay in the
   * log). Skipped (and done by a later one) while another process is reading an old snapshot.
   */
  checkpoint(): void {
    this.group.whenCommitted(() => this.db.pragma('wal_checkpoint(TRUNCATE)'));
  }

  /** Runs a statement that writes, and answers how many rows it changed. */
  changes(query: Sql): number {
    const { statement, values } = this.statement(query);
    return statement.run(...values).changes;
  }

  all(query: Sql): Row[] {
    const { statement, values } = this.statement(query);
    return statement.all(...values) as Row[];
  }

  /**
   * Records a change in the audit trail (with its event type), called inside the transaction that
   * makes it; answers the entry's id.
   */
  record(audit: AuditContext, { action, resourceType, resourceId, userId, consent = null }: AuditedChange): string {
    const attributes = JSON.stringify(audit.attributes);
    const eventType = eventTypeOf(resourceType, action);
    const { lastInsertRowid } = this.insertAudit.run(
      audit.actor,
      action,
      resourceType,
      resourceId,
      userId,
      attributes,
      eventType,
      consent === null ? null : JSON.stringify(consent),
    );
    return String(lastInsertRowid);
  }

  /**
   * Within a write's transaction: false when there is no such row; the precondition failure when
   * there is one at a version the precondition does not name. Without a precondition it reads
   * nothing: the write itself tells whether the row was there.
   */
  meetsPrecondition(version: Database.Statement, keys: unknown[], ifVersion: IfVersion): boolean {
    if (ifVersion === undefined) return true;
    const current = version.get(...keys) as number | undefined;
    if (current === undefined) return false;
    requireVersion(current, ifVersion);
    return true;
  }

  /**
   * Deletes the row `keys` name with `remove`, if `version` finds it at a version the precondition
   * names, and records it: one transaction; false when there was no such row.
   */
  deleteRow({ version, remove, keys, ifVersion, record, dependents = [] }: RowDeletion): boolean {
    return this.db.transaction(() => {
      if (!this.meetsPrecondition(version, keys, ifVersion)) return false;
      for (const dependent of dependents) dependent.run(...keys);
      if (remove.run(...keys).changes === 0) return false;
      record();
      return true;
    })();
  }
}
