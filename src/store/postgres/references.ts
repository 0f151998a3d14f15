/**
 * References to the catalogue on PostgreSQL, made inside the transaction of the write that makes
 * them: the records found are locked FOR KEY SHARE, so none can be deleted before the write
 * commits (a delete waits, then finds the new reference and is refused); on Citus, where row locks
 * on a reference table deadlock even between writes that only name a record, a shared advisory lock
 * per record does that instead (see lockCatalogueRecords); the ids the catalogue
 * does not know are registered (name = id, with their own audit entries and events) or, with
 * strict references, refused; inactive records are refused.
 */
import type pg from 'pg';
import type { AuditContext } from '../../domain/audit.js';
import { resolveReferences, type CatalogueType, type Reference } from '../../domain/catalogue.js';
import { auditInsert, lockCatalogueRecords } from './database.js';

/** Rounds of look-up and registration: another write registering the same ids can cost one more. */
const ROUNDS = 3;

export interface PostgresReferences {
  /** Within a write's transaction, before it writes the references; throws the failure that refuses them. */
  attach(
    client: pg.PoolClient,
    type: CatalogueType,
    references: readonly Reference[],
    audit: AuditContext | null,
  ): Promise<void>;
  /** Within a write's transaction, holds records it reads without naming them anew, as `attach` holds those it names. */
  hold(client: pg.PoolClient, type: CatalogueType, ids: readonly string[]): Promise<void>;
}

export function postgresReferences(strict: boolean, citus: boolean): PostgresReferences {
  async function attach(
    client: pg.PoolClient,
    type: CatalogueType,
    references: readonly Reference[],
    audit: AuditContext | null,
  ): Promise<void> {
    if (references.length === 0) return;
    // In one order, so that two writes registering the same ids never wait for each other in a circle.
    const ids = [...new Set(references.map((r) => r.id))].sort();
    if (citus) await lockCatalogueRecords(client, type, ids, 'shared');
    for (let round = 1; round <= ROUNDS; round += 1) {
      const { rows } = await client.query<{ id: string; active: boolean }>(
        `SELECT id, active FROM ${type} WHERE id = ANY($1::text[]) ORDER BY id${citus ? '' : ' FOR KEY SHARE'}`,
        [ids],
      );
      const unknown = resolveReferences(type, references, new Map(rows.map((r) => [r.id, r.active])), strict);
      if (unknown.length === 0) return;
      const params: unknown[] = [unknown];
      const registering = { action: 'create', resourceType: type, userIdColumn: 'NULL', from: 'r' } as const;
      const record = audit
        ? `, a AS (${auditInsert(params, { actor: audit.actor, attributes: [] }, registering)})`
        : '';
      const registered = await client.query(
        `WITH r AS (
           INSERT INTO ${type} (id, name) SELECT x, x FROM unnest($1::text[]) AS x ON CONFLICT DO NOTHING RETURNING id
         )${record}
         SELECT id FROM r`,
        params,
      );
      // Those another write registered meanwhile are found (and locked) in the next round.
      if (registered.rowCount === unknown.length) return;
    }
    throw new Error(`the ${type} named could not be registered: others kept changing them`);
  }

  async function hold(client: pg.PoolClient, type: CatalogueType, ids: readonly string[]): Promise<void> {
    if (citus) await lockCatalogueRecords(client, type, ids, 'shared');
    else await client.query(`SELECT 1 FROM ${type} WHERE id = ANY($1::text[]) ORDER BY id FOR KEY SHARE`, [ids]);
  }

  return { attach, hold };
}
