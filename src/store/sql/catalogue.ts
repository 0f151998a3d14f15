/**
 * The catalogue's tables (products, newsletters) as every adapter keeps them: one shape with a
 * few columns of each kind's own, so the two tables are read, paged and changed by the same code.
 * A record's columns are named as its attributes, in snake case (`deliveryDays`, `delivery_days`).
 */
import { SINGULAR, type CatalogueRecord, type CatalogueType, type CatalogueValues } from '../../domain/catalogue.js';
import type { CatalogueQuery } from '../port.js';
import { join, raw, sql, type Dialect, type Sql } from './builder.js';
import { boolean, seconds, type Row } from './rows.js';

export interface CatalogueTable {
  /** The table, and the resource type its audit entries and events name. */
  type: CatalogueType;
  /** Its own attributes beyond the core, each kept in the column `columnOf` names. */
  own: readonly string[];
  /** Those of them that are booleans (which SQLite keeps as 0 and 1). */
  flags?: readonly string[];
  /** Where it is referred to from, and what those rows are, for the refusal of a delete. */
  referrers: { table: string; column: string; noun: string };
}

export const PRODUCTS_TABLE: CatalogueTable = {
  type: 'products',
  own: ['resource', 'license', 'deliveryDays'],
  referrers: { table: 'subscriptions', column: 'product_id', noun: 'subscriptions' },
};

export const NEWSLETTERS_TABLE: CatalogueTable = {
  type: 'newsletters',
  own: ['doubleOptIn'],
  flags: ['doubleOptIn'],
  referrers: { table: 'user_newsletters', column: 'newsletter_id', noun: 'members' },
};

/** The column an attribute is kept in. */
function columnOf(attribute: string): string {
  return attribute.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
}

export function catalogueColumns(table: CatalogueTable): string {
  const own = table.own.map(columnOf);
  return ['id', 'name', 'description', 'active', ...own, 'created_at', 'updated_at', 'version'].join(', ');
}

export function toCatalogueRecord<R extends CatalogueRecord>(table: CatalogueTable, row: Row): R {
  const record: Record<string, unknown> = {
    id: row.id as string,
    name: row.name as string,
    description: row.description as string | null,
    active: boolean(row.active),
    createdAt: seconds(row.created_at),
    updatedAt: seconds(row.updated_at),
    version: Number(row.version),
  };
  for (const attribute of table.own) {
    const value = row[columnOf(attribute)] ?? null;
    record[attribute] = table.flags?.includes(attribute) ? boolean(value) : value;
  }
  return record as R;
}

/** A page of the table in id order, after `afterId`, active or not when the query says. */
export function cataloguePageQuery(table: CatalogueTable, query: CatalogueQuery): Sql {
  const conditions: Sql[] = [];
  if (query.afterId !== undefined) conditions.push(sql`id > ${query.afterId}`);
  if (query.active !== undefined) conditions.push(raw(`active = ${query.active ? 'true' : 'false'}`));
  const filter = conditions.length === 0 ? raw('') : sql`WHERE ${join(conditions, ' AND ')}`;
  return sql`SELECT ${raw(catalogueColumns(table))} FROM ${raw(table.type)} ${filter} ORDER BY id LIMIT ${query.limit}`;
}

/** A value as a column of this dialect keeps it: SQLite has no booleans. */
function columnValue(value: unknown, dialect: Dialect): unknown {
  return typeof value === 'boolean' && dialect === 'sqlite' ? (value ? 1 : 0) : value;
}

/** The columns and values of a new record (its id first). */
export function catalogueInsert(table: CatalogueTable, id: string, values: CatalogueValues, dialect: Dialect): Sql {
  const row = values as unknown as Record<string, unknown>;
  const names = ['name', 'description', 'active', ...table.own];
  const params = names.map((name) => sql`${columnValue(row[name] ?? null, dialect)}`);
  const columns = names.map(columnOf).join(', ');
  return sql`INSERT INTO ${raw(table.type)} (id, ${raw(columns)}) VALUES (${id}, ${join(params, ', ')})`;
}

/** The assignments of an update: each attribute it names, a new version, and the time of the change. */
export function catalogueAssignments(table: CatalogueTable, changes: Partial<CatalogueValues>, dialect: Dialect): Sql {
  const sets: Sql[] = [];
  for (const name of ['name', 'description', 'active', ...table.own]) {
    const value = (changes as Record<string, unknown>)[name];
    if (value !== undefined) sets.push(sql`${raw(columnOf(name))} = ${columnValue(value, dialect)}`);
  }
  sets.push(raw(`version = version + 1, updated_at = ${dialect === 'sqlite' ? 'unixepoch()' : 'now()'}`));
  return join(sets, ', ');
}

/** How many rows refer to the record: what a refused delete says. */
export function referrersCount(table: CatalogueTable, id: string): Sql {
  const { table: from, column } = table.referrers;
  return sql`SELECT count(*) AS n FROM ${raw(from)} WHERE ${raw(column)} = ${id}`;
}

export function noun(table: CatalogueTable): string {
  return SINGULAR[table.type];
}
