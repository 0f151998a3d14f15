/**
 * The catalogue's records on SQLite: products and newsletters are created, read, paged, changed
 * and deleted by the same statements over their own tables (see sql/catalogue.ts).
 */
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
import { requireVersion } from '../ports/versions.js';
import type { SqliteDatabase } from './database.js';

/** Tries a random id again this often when it clashes (it never should). */
const DRAWS = 3;

export function sqliteCatalogue<R extends CatalogueRecord, V extends CatalogueValues>(
  database: SqliteDatabase,
  table: CatalogueTable,
) {
  const { db } = database;
  const columns = catalogueColumns(table);
  const read = (row: Row) => toCatalogueRecord<R>(table, row);

  async function create(id: string | undefined, values: V, audit: AuditContext): Promise<R> {
    return db.transaction(() => {
      for (let draw = 1; ; draw += 1) {
        const chosen = id ?? newCatalogueId();
        try {
          const [row] = database.all(
            sql`${catalogueInsert(table, chosen, values, 'sqlite')} RETURNING ${raw(columns)}`,
          );
          database.record(audit, { action: 'create', resourceType: table.type, resourceId: chosen, userId: null });
          return read(row as Row);
        } catch (error) {
          if ((error as { code?: string }).code !== 'SQLITE_CONSTRAINT_PRIMARYKEY') throw error;
          if (id !== undefined) throw failures.idTaken(noun(table), id);
          if (draw === DRAWS) throw error;
        }
      }
    })();
  }

  const selectOne = db.prepare(`SELECT ${columns} FROM ${table.type} WHERE id = ?`);
  const selectMany = db.prepare(
    `SELECT ${columns} FROM ${table.type} WHERE id IN (SELECT value FROM json_each(?)) ORDER BY id`,
  );

  async function getMany(ids: readonly string[]): Promise<R[]> {
    if (ids.length === 0) return [];
    return (selectMany.all(JSON.stringify(ids)) as Row[]).map(read);
  }

  async function list(query: CatalogueQuery): Promise<R[]> {
    return database.all(cataloguePageQuery(table, query)).map(read);
  }

  async function update(
    id: string,
    changes: Partial<V>,
    audit: AuditContext,
    ifVersion?: IfVersion,
  ): Promise<R | undefined> {
    return db
      .transaction(() => {
        const current = selectOne.get(id) as Row | undefined;
        if (!current) return undefined;
        requireVersion(Number(current.version), ifVersion);
        const assignments = catalogueAssignments(table, changes, 'sqlite');
        const [row] = database.all(
          sql`UPDATE ${raw(table.type)} SET ${assignments} WHERE id = ${id} RETURNING ${raw(columns)}`,
        );
        database.record(audit, { action: 'update', resourceType: table.type, resourceId: id, userId: null });
        return read(row as Row);
      })
      .immediate();
  }

  const version = db.prepare(`SELECT version FROM ${table.type} WHERE id = ?`).pluck();
  const remove = db.prepare(`DELETE FROM ${table.type} WHERE id = ?`);

  async function deleteRecord(id: string, audit: AuditContext, ifVersion?: IfVersion): Promise<boolean> {
    return db
      .transaction(() => {
        if (!database.meetsPrecondition(version, [id], ifVersion)) return false;
        const [{ n } = { n: 0 }] = database.all(referrersCount(table, id)) as { n: number }[];
        if (n > 0) throw failures.stillReferenced(noun(table), id, n, table.referrers.noun);
        if (remove.run(id).changes === 0) return false;
        database.record(audit, { action: 'delete', resourceType: table.type, resourceId: id, userId: null });
        return true;
      })
      .immediate();
  }

  return { create, getMany, list, update, delete: deleteRecord };
}
