/**
 * The PostgreSQL pool as every kind of record uses it: one round trip per call wherever a single
 * statement can do the work (data-modifying CTEs write a change and its audit entry together),
 * transactions where a change depends on what is stored, and the preconditions of If-Match.
 */
import { createHash } from 'node:crypto';
import type pg from 'pg';
import type { AuditAction, AuditContext } from '../../domain/audit.js';
import { eventTypeOf } from '../../domain/events.js';
import { failures } from '../../domain/failures.js';
import type { IfVersion } from '../port.js';
import type { Sql } from '../sql/builder.js';
import type { Row } from '../sql/rows.js';

/**
 * The advisory lock that serializes migrations and first starts. Any number will do, as long as
 * no other program takes the same one.
 */
export const MIGRATION_LOCK = 7_305_119_421;

/** How long a statement of `longReads` may run, on the server and in the client. */
const LONG_READ_TIMEOUT_MS = 60_000;

/** SQLSTATE of a transaction cancelled to break a deadlock, and how often one is run again. */
const DEADLOCK = '40P01';
const DEADLOCK_RETRIES = 5;

const PREPARED_NAMES = new Map<string, string>();
const PREPARED_NAMES_KEPT = 256;

/**
 * A prepared statement's name for its text: a statement built from a few shapes (the print run's
 * pages, the address's probes, a reader's consents) is prepared once per shape, within
 * PostgreSQL's 63 characters. The names are kept, as callers ask on every request and a shape
 * recurs: a hash of the text each time would cost more than looking it up.
 */
export function preparedName(kind: string, text: string): string {
  const key = `${kind}\0${text}`;
  let name = PREPARED_NAMES.get(key);
  if (name === undefined) {
    // The shapes in use are few; those of the past are let go at times.
    if (PREPARED_NAMES.size >= PREPARED_NAMES_KEPT) PREPARED_NAMES.clear();
    name = `${kind}-${createHash('sha1').update(text).digest('hex').slice(0, 16)}`;
    PREPARED_NAMES.set(key, name);
  }
  return name;
}

/** What `deleteRow` deletes, how it records it, and what goes with it. */
export interface RowDeletion {
  table: string;
  /** The condition naming the row, with `keys` as $1…. */
  where: string;
  keys: unknown[];
  /** The user the row is about, an expression over the deleted row (`user_id`, a user's `id`) or `NULL`. */
  userIdColumn: string;
  audit: AuditContext;
  ifVersion: IfVersion;
  /**
   * Statements run in the same one, reading the deleted row as `d`: they remove what names it
   * without a foreign key.
   */
  dependents?: readonly string[];
  /** The connection of a transaction to run it in, when it is part of one. */
  on?: pg.ClientBase;
}

export class PostgresDatabase {
  /** `citus`: the database is a Citus coordinator, where a few statements take another form. */
  constructor(
    readonly pool: pg.Pool,
    readonly citus = false,
  ) {}

  async rows(sql: string | Sql, params: unknown[] = []): Promise<Row[]> {
    const { text, values } = typeof sql === 'string' ? { text: sql, values: params } : sql.render('postgres');
    return this.retryingDeadlocks(async () => (await this.pool.query(text, values)).rows as Row[]);
  }

  /** As `rows`, each row an array of its columns in order: no object is built for a row. */
  async arrays(sql: Sql): Promise<unknown[][]> {
    const { text, values } = sql.render('postgres');
    return this.retryingDeadlocks(async () => (await this.pool.query({ text, values, rowMode: 'array' })).rows);
  }

  /**
   * A hot read of fixed text as a named prepared statement: each connection parses and plans it
   * once instead of on every call. Only for reads whose plan is the same whatever the values:
   * exact matches by key, or a walk in an index's order cut by a LIMIT (a generic plan would
   * misjudge a range read whole, or a filter of varying width).
   */
  async preparedRows(name: string, sql: string | Sql, params: unknown[] = []): Promise<Row[]> {
    const { text, values } = typeof sql === 'string' ? { text: sql, values: params } : sql.render('postgres');
    return this.retryingDeadlocks(async () => (await this.pool.query({ name, text, values })).rows as Row[]);
  }

  /**
   * Statements that read a whole table's worth (a date's draw counts every delivery of the run),
   * answered from one snapshot, each with `LONG_READ_TIMEOUT_MS` where a request's statement has
   * the pool's few seconds: at 1,000,000 readers such a count takes seconds, and what asks for it
   * (the draw report) shares one count among its callers and keeps it (REPORT_MAX_AGE_SECONDS).
   */
  async longReads(queries: readonly Sql[]): Promise<Row[][]> {
    return this.transaction(async (client) => {
      await client.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY');
      await client.query(`SET LOCAL statement_timeout = ${LONG_READ_TIMEOUT_MS}`);
      const answers: Row[][] = [];
      for (const query of queries) {
        const { text, values } = query.render('postgres');
        // pg's own timeout, set on the pool, would cut the statement short on the client side; pg
        // reads one given with the query too, which its types leave out.
        const config = { text, values, query_timeout: LONG_READ_TIMEOUT_MS + 2000 } as pg.QueryConfig;
        answers.push((await client.query(config)).rows as Row[]);
      }
      return answers;
    });
  }

  /** Runs a statement that writes, and answers how many rows it changed. */
  async changes(sql: string | Sql, params: unknown[] = []): Promise<number> {
    const { text, values } = typeof sql === 'string' ? { text: sql, values: params } : sql.render('postgres');
    return this.retryingDeadlocks(async () => (await this.pool.query(text, values)).rowCount ?? 0);
  }

  /** Runs `work` in a transaction on one pooled connection; rolls back when it throws. */
  async transaction<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    return this.retryingDeadlocks(() => this.transactionOnce(work));
  }

  /**
   * On Citus, a reference table's row is locked on every node, and two transactions can take those
   * locks in opposite orders where one server would have queued them: the one the deadlock
   * detector cancels (having changed nothing) runs again.
   */
  private async retryingDeadlocks<T>(work: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await work();
      } catch (error) {
        if (!this.citus || attempt === DEADLOCK_RETRIES || (error as { code?: string }).code !== DEADLOCK) throw error;
      }
    }
  }

  private async transactionOnce<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      const result = await work(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {});
      throw error;
    } finally {
      client.release();
    }
  }

  /**
   * After a conditional write changed no row: false when the row does not exist (a 404), the
   * precondition failure when it exists at another version than the precondition named.
   */
  async refusedOrMissing(table: string, where: string, params: unknown[], ifVersion: IfVersion): Promise<false> {
    if (ifVersion === undefined) return false;
    const rows = await this.rows(`SELECT 1 FROM ${table} WHERE ${where}`, params);
    if (rows.length > 0) throw failures.preconditionFailed();
    return false;
  }

  /**
   * Deletes the row of `table` that `where` names (with `keys` as $1…), if it is at a version the
   * precondition names, and records it under the table's name, in one statement; false when there
   * was no such row, the precondition failure when there is one at another version.
   */
  async deleteRow({
    table,
    where,
    keys,
    userIdColumn,
    audit,
    ifVersion,
    dependents = [],
    on,
  }: RowDeletion): Promise<boolean> {
    const params = [...keys];
    const condition = versionCondition(params, ifVersion);
    const record = auditInsert(params, audit, {
      action: 'delete',
      resourceType: table,
      userIdColumn,
      from: 'd',
    });
    const also = dependents.map((statement, i) => `x${i} AS (${statement}), `).join('');
    const statement = `WITH d AS (DELETE FROM ${table} WHERE ${where} ${condition} RETURNING *), ${also}a AS (${record})
       SELECT count(*)::int AS n FROM d`;
    const rows = on ? ((await on.query(statement, params)).rows as Row[]) : await this.rows(statement, params);
    return rows[0]?.n === 1 || (await this.refusedOrMissing(table, where, keys, ifVersion));
  }
}

/**
 * On Citus, a catalogue record (a reference table's row) is locked on every node, in orders the
 * nodes do not agree on: twenty subscriptions naming one product, created at once, deadlocked
 * eight times past every retry when each locked the product FOR KEY SHARE. There, a write that
 * names records takes this lock instead, shared, and a deletion takes it exclusive, both on the
 * coordinator, where every transaction starts, each set in one order: so no record is deleted
 * while a write naming it is under way, and writes never wait for each other. A single server
 * needs none of it: its row locks are taken in one place.
 */
export async function lockCatalogueRecords(
  client: pg.ClientBase,
  type: string,
  ids: readonly string[],
  mode: 'shared' | 'exclusive',
): Promise<void> {
  const lock = mode === 'shared' ? 'pg_advisory_xact_lock_shared' : 'pg_advisory_xact_lock';
  await client.query(`SELECT ${lock}(hashtext($1 || '/' || x)) FROM unnest($2::text[]) AS x ORDER BY x`, [
    type,
    [...ids].sort(),
  ]);
}

/**
 * Whether `error` is a breach (SQLSTATE `code`) of the constraint `name`. On Citus a statement
 * reaches a shard of the table (a local table's too), whose constraints carry the shard's id as
 * a suffix.
 */
/** The rows of a built statement, run on a write's connection (inside its transaction). */
export async function rowsOn(client: pg.ClientBase, query: Sql): Promise<Row[]> {
  const { text, values } = query.render('postgres');
  return (await client.query(text, values)).rows as Row[];
}

export function violates(error: unknown, code: string, name: string): boolean {
  const e = error as { code?: string; constraint?: string };
  return e.code === code && e.constraint !== undefined && new RegExp(`^${name}(_\\d+)?$`).test(e.constraint);
}

/** The SQL condition of a precondition on the row version (none without one); adds its parameter. */
export function versionCondition(params: unknown[], ifVersion: IfVersion): string {
  if (ifVersion === undefined) return '';
  params.push(ifVersion);
  return `AND version = ANY($${params.length}::int[])`;
}

/** What `auditInsert` records: one entry for each row of `from`, with SQL expressions read from it. */
export interface AuditedRows {
  action: AuditAction;
  resourceType: string;
  /** The resource's id, an expression over `from`: `id` unless given. */
  idColumn?: string;
  /** The user the resource is about, an expression over `from` (`user_id`, a user's `id`) or `NULL`. */
  userIdColumn: string;
  /** The CTE or table the rows come from, e.g. `u` of `WITH u AS (UPDATE … RETURNING …)`. */
  from: string;
}

/**
 * The statement that records a change in the audit trail (with its event type), as part of the statement making it:
 * one row for each row of `from` (none when the change changed nothing). Adds its parameters.
 */
export function auditInsert(
  params: unknown[],
  audit: AuditContext,
  { action, resourceType, idColumn = 'id', userIdColumn, from }: AuditedRows,
): string {
  params.push(audit.actor, audit.attributes, eventTypeOf(resourceType, action));
  const actor = `$${params.length - 2}::text`;
  const attributes = `$${params.length - 1}::text[]`;
  const eventType = `$${params.length}::text`;
  return `INSERT INTO audit_log (actor, action, resource_type, resource_id, user_id, attributes, event_type)
    SELECT ${actor}, '${action}', '${resourceType}', ${idColumn}::text, ${userIdColumn}::text, ${attributes},
      ${eventType} FROM ${from}`;
}
