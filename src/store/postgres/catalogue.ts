/**
 * The catalogue's records on PostgreSQL: products and newsletters are created, read, paged,
 * changed and deleted by the same statements over their own tables (see sql/catalogue.ts), each
 * write with its audit entry in one statement.
 */
import type pg from 'pg';
import type { AuditContext } from '../../domain/audit.js';
import { newCatalogueId, type CatalogueRecord, type CatalogueValues } from '../../domain/catalogue.js';
import { failures } from '../../domain/failures.js';
import type { CatalogueQuery, IfVersion } from '../port.js';
import { raw, sql } from '../sql/builder.js';
import {
  catalogueAssignments,
  catalogueColumns,
  catalogueInsert,
  cataloguePageQuery,
  noun,
  referrersCount,
  toCatalogueRecord,
  type CatalogueTable,
} from '../sql/catalogue.js';
import type { Row } from '../sql/rows.js';
import { auditInsert, lockCatalogueRecords, versionCondition, type PostgresDatabase } from './database.js';
import type { Changing } from './notified-cache.js';

/** Tries a random id again this often when it clashes (it never should). */
const DRAWS = 3;

/**
 * Work an update of a record does in its transaction: `before` ahead of the change (given what
 * changes), and `after` with the record as changed and what `before` answered.
 */
export interface UpdateWork<S> {
  before(client: pg.PoolClient, id: string, changes: object): Promise<S>;
  after(client: pg.PoolClient, row: Row, before: S): Promise<void>;
}

/** The catalogue of `table`; with `changing`, each update and deletion runs through it, each update with `work`. */
export function postgresCatalogue<R extends CatalogueRecord, V extends CatalogueValues, S = undefined>(
  database: PostgresDatabase,
  table: CatalogueTable,
  changing?: Changing,
  work?: UpdateWork<S>,
) {
  const columns = catalogueColumns(table);
  const read = (row: Row) => toCatalogueRecord<R>(table, row);

  async function create(id: string | undefined, values: V, audit: AuditContext): Promise<R> {
    for (let draw = 1; draw <= DRAWS; draw += 1) {
      const chosen = id ?? newCatalogueId();
      const insert = sql`${catalogueInsert(table, chosen, values, 'postgres')} ON CONFLICT DO NOTHING RETURNING ${raw(columns)}`;
      const { text, values: params } = insert.render('postgres');
      const record = auditInsert(params, audit, {
        action: 'create',
        resourceType: table.type,
        userIdColumn: 'NULL',
        from: 'c',
      });
      const [row] = await database.rows(`WITH c AS (${text}), a AS (${record}) SELECT * FROM c`, params);
      if (row) return read(row);
      if (id !== undefined) throw failures.idTaken(noun(table), id);
    }
    throw new Error(`no free id for a new ${noun(table)}`);
  }

  async function getMany(ids: readonly string[]): Promise<R[]> {
    if (ids.length === 0) return [];
    const rows = await database.rows(`SELECT ${columns} FROM ${table.type} WHERE id = ANY($1::text[]) ORDER BY id`, [
      ids,
    ]);
    return rows.map(read);
  }

  async function list(query: CatalogueQuery): Promise<R[]> {
    return (await database.rows(cataloguePageQuery(table, query))).map(read);
  }

  async function update(
    id: string,
    changes: Partial<V>,
    audit: AuditContext,
    ifVersion?: IfVersion,
  ): Promise<R | undefined> {
    const assignments = catalogueAssignments(table, changes, 'postgres');
    const { text, values: params } = sql`UPDATE ${raw(table.type)} SET ${assignments} WHERE id = ${id}`.render(
      'postgres',
    );
    const condition = versionCondition(params, ifVersion);
    const record = auditInsert(params, audit, {
      action: 'update',
      resourceType: table.type,
      userIdColumn: 'NULL',
      from: 'u',
    });
    const statement = `WITH u AS (${text} ${condition} RETURNING ${columns}), a AS (${record}) SELECT * FROM u`;
    const [row] = changing
      ? await changing(async (client) => {
          const before = await work?.before(client, id, changes);
          const rows = (await client.query(statement, params)).rows as Row[];
          if (work && rows[0]) await work.after(client, rows[0], before as S);
          return rows;
        })
      : await database.rows(statement, params);
    if (row) return read(row);
    await database.refusedOrMissing(table.type, 'id = $1', [id], ifVersion);
    return undefined;
  }

  async function deleteRecord(id: string, audit: AuditContext, ifVersion?: IfVersion): Promise<boolean> {
    const remove = async (client?: pg.PoolClient) => {
      if (client && database.citus) await lockCatalogueRecords(client, table.type, [id], 'exclusive');
      return database.deleteRow({
        table: table.type,
        where: 'id = $1',
        keys: [id],
        userIdColumn: 'NULL',
        audit,
        ifVersion,
        on: client,
      });
    };
    try {
      if (changing) return await changing(remove);
      return await (database.citus ? database.transaction(remove) : remove());
    } catch (error) {
      // The foreign key refused it: say by how many.
      if ((error as { code?: string }).code !== '23503') throw error;
      const [row] = await database.rows(referrersCount(table, id));
      throw failures.stillReferenced(noun(table), id, Number(row?.n), table.referrers.noun);
    }
  }

  return { create, getMany, list, update, delete: deleteRecord };
}
