/**
 * The catalogue: the products subscriptions are sold as and the newsletters readers receive. Both
 * are records with the same core (a name, a description, whether they are on offer) and ids that
 * are strings a client may choose, so that ids like `123` or `daily` from another system carry
 * over. What the service assigns itself is random (a UUID): a sequence would sooner or later hand
 * out `123` to one record while a client was about to bring its own `123` over, and a random id is
 * one no client can foresee. (A clash of two random ids, or of one with an id a client chose,
 * would be refused by the primary key and another drawn: nothing is ever overwritten.)
 *
 * The rest of the service names these records by id (a subscription's product, a reader's
 * newsletters). The rules for such a reference live here too: an unknown id is registered on first
 * use (name = id) so the catalogue is always complete, or refused when references are strict; an
 * inactive record is never newly attached.
 */
import { randomUUID } from 'node:crypto';
import { Type, type Static, type TProperties } from '@sinclair/typebox';
import { formatInstant } from './dates.js';
import { failures, type Problem } from './failures.js';
import { Nullable } from './schema.js';

export const PRODUCTS = 'products';
export const NEWSLETTERS = 'newsletters';
export type CatalogueType = typeof PRODUCTS | typeof NEWSLETTERS;

/** Which record of the catalogue a type names, for messages. */
export const SINGULAR: Readonly<Record<CatalogueType, string>> = { products: 'product', newsletters: 'newsletter' };

/**
 * An id a client may give a new record, or name in a reference: `[A-Za-z0-9._-]{1,64}`, but for
 * `.` and `..`, which URL parsers remove from a path (RFC 3986, 5.2.4): no link could reach them.
 */
export const CatalogueId = Type.String({
  minLength: 1,
  maxLength: 64,
  pattern: '^(?!\\.\\.?$)[A-Za-z0-9._-]+$',
  errorMessage: { pattern: 'may hold only letters, digits, dots, underscores and hyphens, and is not . or ..' },
});

/**
 * An id as a path or a cursor carries it: anything a store may hold, including the ids that were
 * in use before the catalogue existed (registered as they were), so that those stay reachable.
 */
export const StoredCatalogueId = Type.String({
  minLength: 1,
  maxLength: 64,
  pattern: '^[^\\u0000]+$',
  errorMessage: { pattern: 'must not contain NUL characters' },
});

/** An id for a record created without one. */
export function newCatalogueId(): string {
  return randomUUID();
}

/** What every record of the catalogue has. */
export interface CatalogueRecord {
  id: string;
  name: string;
  description: string | null;
  active: boolean;
  createdAt: number;
  updatedAt: number;
  /** Goes up by one with every change: the resource's ETag. */
  version: number;
}

/** The attributes a record is created with (and, all optional, changed with). */
export interface CatalogueValues {
  name: string;
  description: string | null;
  active: boolean;
}

const Name = Type.String({ minLength: 1, maxLength: 200, pattern: '\\S', errorMessage: { pattern: "can't be blank" } });
const Description = Nullable(Type.String({ maxLength: 2000 }));

/** The write schemas of a kind of record: the core attributes and its own. */
export function catalogueWriteSchemas<P extends TProperties>(own: P) {
  const create = Type.Object(
    {
      name: Name,
      description: Type.Optional(Description),
      active: Type.Optional(Type.Boolean({ default: true, description: 'Whether it may be newly attached.' })),
      ...own,
    },
    { additionalProperties: false },
  );
  // Stryker disable next-line ObjectLiteral: Partial keeps the create schema's additionalProperties: false
  return { create, update: Type.Partial(create, { additionalProperties: false }) };
}

/** The read schema of a kind of record: the core attributes, its own, and when it was made and changed. */
export function catalogueReadSchema<P extends TProperties>(own: P) {
  return Type.Object({
    name: Type.String(),
    description: Nullable(Type.String()),
    active: Type.Boolean(),
    ...own,
    createdAt: Type.String({ format: 'date-time' }),
    updatedAt: Type.String({ format: 'date-time' }),
  });
}

const CoreCreate = catalogueWriteSchemas({}).create;

/** The core values of a create: what was sent, with the defaults. */
export function newCatalogueValues(attributes: Static<typeof CoreCreate>): CatalogueValues {
  return { name: attributes.name, description: attributes.description ?? null, active: attributes.active ?? true };
}

export function toCatalogueAttributes(record: CatalogueRecord) {
  return {
    name: record.name,
    description: record.description,
    active: record.active,
    createdAt: formatInstant(record.createdAt),
    updatedAt: formatInstant(record.updatedAt),
  };
}

/** A reference a write makes to a record of the catalogue, and where in the document it is. */
export interface Reference {
  id: string;
  pointer: string;
}

/** Where a request names a subscription's product. */
export const PRODUCT_POINTER = '/data/relationships/product/data/id';

/** Where a request names the `index`-th newsletter a user is added to. */
export function newsletterPointer(index: number): string {
  return `/data/attributes/newsletters/add/${index}`;
}

/**
 * What becomes of a write's references, given the records found (with whether they are active):
 * the unknown ids to register (name = id) in the write's transaction, or the failure that refuses
 * the write. Strict references refuse unknown ids; either way an inactive record is not newly
 * attached. Each id counts once, at its first pointer.
 */
export function resolveReferences(
  type: CatalogueType,
  references: readonly Reference[],
  found: ReadonlyMap<string, boolean>,
  strict: boolean,
): string[] {
  const unknown: Problem[] = [];
  const inactive: Problem[] = [];
  const register: string[] = [];
  const seen = new Set<string>();
  for (const { id, pointer } of references) {
    if (seen.has(id)) continue;
    seen.add(id);
    const active = found.get(id);
    if (active === false)
      inactive.push({ pointer, detail: `${SINGULAR[type]} ${id} is inactive: it cannot be attached` });
    else if (active === undefined && strict) unknown.push({ pointer, detail: `there is no ${SINGULAR[type]} ${id}` });
    else if (active === undefined) register.push(id);
  }
  if (unknown.length > 0) throw failures.unknownReference(unknown);
  if (inactive.length > 0) throw failures.inactiveReference(inactive);
  return register.sort();
}
