/**
 * References to the catalogue on SQLite, made inside the transaction of the write that makes them:
 * the ids the catalogue does not know are registered (name = id, with their own audit entries and
 * events) or, with strict references, refused; inactive records are refused. The transaction
 * holds the write lock, so nothing can delete a record between its check and the write.
 */
import type { AuditContext } from '../../domain/audit.js';
import { resolveReferences, type CatalogueType, type Reference } from '../../domain/catalogue.js';
import type Database from 'better-sqlite3';
import type { SqliteDatabase } from './database.js';

export interface SqliteReferences {
  /** Within a write's transaction, before it writes the references; throws the failure that refuses them. */
  attach(type: CatalogueType, references: readonly Reference[], audit: AuditContext | null): void;
}

export function sqliteReferences(database: SqliteDatabase, strict: boolean): SqliteReferences {
  const { db } = database;
  const statementsOf = (type: CatalogueType) => ({
    found: db.prepare(`SELECT id, active FROM ${type} WHERE id IN (SELECT value FROM json_each(?))`),
    register: db.prepare(`INSERT INTO ${type} (id, name) VALUES (?, ?)`),
  });
  const statements: Record<CatalogueType, { found: Database.Statement; register: Database.Statement }> = {
    products: statementsOf('products'),
    newsletters: statementsOf('newsletters'),
  };

  function attach(type: CatalogueType, references: readonly Reference[], audit: AuditContext | null): void {
    if (references.length === 0) return;
    const { found, register } = statements[type];
    const rows = found.all(JSON.stringify(references.map((r) => r.id))) as { id: string; active: number }[];
    const unknown = resolveReferences(type, references, new Map(rows.map((r) => [r.id, r.active === 1])), strict);
    for (const id of unknown) {
      register.run(id, id);
      if (audit)
        database.record(
          { actor: audit.actor, attributes: [] },
          { action: 'create', resourceType: type, resourceId: id, userId: null },
        );
    }
  }

  return { attach };
}
