/**
 * Moving subscriber lists in and out: `circulation export` streams users (and their
 * subscriptions) as NDJSON or CSV; `circulation import` streams them back in, in constant
 * memory, matching users by email so that running it twice changes nothing the second time.
 * Rows are checked by the same schemas and rules as the API and refused with the same texts.
 */
import { once } from 'node:events';
import { createReadStream, statSync } from 'node:fs';
import { createInterface } from 'node:readline';
import type { Writable } from 'node:stream';
import { parse as parseCsv } from 'csv-parse';
import { stringify as stringifyCsv } from 'csv-stringify';
import type { AuditContext } from '../domain/audit.js';
import { ApiError } from '../domain/errors.js';
import { hashPassword } from '../domain/password.js';
import {
  newSubscription,
  SUBSCRIPTIONS,
  SubscriptionCreateAttributes,
  SubscriptionRelationships,
  toSubscriptionAttributes,
  type StoredSubscription,
  type SubscriptionValues,
} from '../domain/subscription.js';
import {
  toUserAttributes,
  toUserFields,
  USER_FIELDS,
  UserCreateAttributes,
  userRuleProblems,
  USERS,
  type UserCreate,
} from '../domain/user.js';
import { createDocument } from '../http/jsonapi/documents.js';
import { documentValidator } from '../http/plugins/validation.js';
import type { EmailFilter, Store } from '../store/port.js';

export type Format = 'ndjson' | 'csv';

/** Lists in a CSV cell are joined with this. */
const LIST_SEPARATOR = ';';
const LIST_COLUMNS = new Set(['newsletters', 'demographics.recommendations']);
/** CSV has only text: these columns are read as true/false (anything else stays text, to be refused). */
const BOOLEAN_COLUMNS = new Set(['subscription.trial']);

/** The CSV columns of a user: flat attribute paths; the JSON `demographics` as its one list. */
export const USER_CSV_COLUMNS = [
  'id',
  'email',
  ...USER_FIELDS.map((f) => (f === 'demographics' ? 'demographics.recommendations' : f)),
  'newsletters',
];

async function write(out: Writable, chunk: string): Promise<void> {
  if (!out.write(chunk)) await once(out, 'drain');
}

export interface ExportOptions {
  format: Format;
  email?: EmailFilter;
  circulationNumber?: string;
  /** NDJSON only: each user with an array of their subscriptions. */
  subscriptions?: boolean;
}

/** Streams the users, a page of 1,000 at a time by id; answers how many. */
export async function exportUsers(store: Store, out: Writable, options: ExportOptions): Promise<number> {
  const csv = options.format === 'csv' ? stringifyCsv({ header: true, columns: USER_CSV_COLUMNS }) : undefined;
  const done = csv ? once(csv.pipe(out, { end: false }), 'unpipe') : undefined;
  let afterId: string | undefined;
  let count = 0;
  for (;;) {
    const users = await store.listUsers({ ...options, afterId, offset: 0, limit: 1000 });
    if (users.length === 0) break;
    const subscriptions = options.subscriptions
      ? groupByUser(await store.listSubscriptionsOfUsers(users.map((u) => u.id)))
      : undefined;
    for (const user of users) {
      const attributes = toUserAttributes(user.email, user.fields, user.newsletters);
      if (csv) {
        const row: Record<string, unknown> = { id: user.id, ...flatten(attributes) };
        if (!csv.write(row)) await once(csv, 'drain');
      } else {
        const record: Record<string, unknown> = { id: user.id, ...attributes };
        if (subscriptions) {
          record.subscriptions = (subscriptions.get(user.id) ?? []).map((s) => ({
            id: s.id,
            ...toSubscriptionAttributes(s),
            product: s.productId,
          }));
        }
        await write(out, `${JSON.stringify(record)}\n`);
      }
    }
    count += users.length;
    afterId = users.at(-1)?.id;
  }
  if (csv && done) {
    csv.end();
    await once(csv, 'end');
  }
  return count;
}

function groupByUser(subscriptions: readonly StoredSubscription[]): Map<string, StoredSubscription[]> {
  const byUser = new Map<string, StoredSubscription[]>();
  for (const s of subscriptions) byUser.set(s.userId, [...(byUser.get(s.userId) ?? []), s]);
  return byUser;
}

function flatten(attributes: Record<string, unknown>): Record<string, unknown> {
  const row: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(attributes)) {
    if (Array.isArray(value)) row[key] = value.join(LIST_SEPARATOR);
    else if (value !== null && typeof value === 'object') {
      for (const [sub, inner] of Object.entries(value)) {
        row[`${key}.${sub}`] = Array.isArray(inner) ? inner.join(LIST_SEPARATOR) : inner;
      }
    } else row[key] = value;
  }
  return row;
}

/** A CSV row as attributes: empty cells are left out, `a.b` columns nest, lists split. */
function unflatten(row: Record<string, string>): Record<string, unknown> {
  const record: Record<string, unknown> = {};
  for (const [column, cell] of Object.entries(row)) {
    if (cell === '' || column === 'id') continue;
    const value = LIST_COLUMNS.has(column)
      ? cell.split(LIST_SEPARATOR)
      : BOOLEAN_COLUMNS.has(column) && (cell === 'true' || cell === 'false')
        ? cell === 'true'
        : cell;
    const dot = column.indexOf('.');
    if (dot === -1) record[column] = value;
    else {
      const group = column.slice(0, dot);
      record[group] = { ...(record[group] as object | undefined), [column.slice(dot + 1)]: value };
    }
  }
  return record;
}

export interface ImportOptions {
  format: Format;
  /** Where the rejected rows go, with their line numbers and errors. */
  report: Writable;
  audit: AuditContext;
  batchSize?: number;
  onProgress?: (rows: number, fraction: number) => void;
}

export interface ImportResult {
  rows: number;
  created: number;
  updated: number;
  rejected: number;
  subscriptionsAdded: number;
}

interface Row {
  line: number;
  attributes: UserCreate;
  subscriptions: SubscriptionValues[];
}

const validateUser = documentValidator(createDocument(USERS, UserCreateAttributes));
const validateSubscription = documentValidator(
  createDocument(SUBSCRIPTIONS, SubscriptionCreateAttributes, SubscriptionRelationships),
);

/** A record checked as the API would check it: the row, or the problems as `where: detail` texts. */
function check(record: Record<string, unknown>): { row?: Omit<Row, 'line'>; problems: string[] } {
  const {
    subscriptions = [],
    newsletters,
    id: _id,
    ...rest
  } = record as {
    subscriptions?: Record<string, unknown>[];
    newsletters?: unknown;
    id?: unknown;
  };
  const attributes = { ...rest, ...(Array.isArray(newsletters) ? { newsletters: { add: newsletters } } : {}) };
  const problems: string[] = [];
  const userError = validateUser({ data: { type: USERS, attributes } });
  const texts = (error: ApiError, prefix: string) =>
    error.errors.map(
      (e) => `${prefix}${(e.source?.pointer ?? '').replace(/^\/data\/(attributes\/)?/, '')}: ${e.detail}`,
    );
  if (userError) problems.push(...texts(userError, ''));
  else {
    for (const p of userRuleProblems(attributes as UserCreate))
      problems.push(`${p.pointer.replace('/data/attributes/', '')}: ${p.detail}`);
  }
  const values: SubscriptionValues[] = [];
  (Array.isArray(subscriptions) ? subscriptions : []).forEach((s, i) => {
    const { product, id: _sid, expired: _expired, ...subscription } = s as Record<string, unknown>;
    const relationships = product == null ? {} : { product: { data: { type: 'products', id: product } } };
    const document = { data: { type: SUBSCRIPTIONS, attributes: subscription, relationships } };
    const error = validateSubscription(document);
    if (error) return problems.push(...texts(error, `subscriptions/${i}/`));
    try {
      values.push(newSubscription(subscription as never, product == null ? null : String(product)));
    } catch (e) {
      if (e instanceof ApiError) problems.push(...texts(e, `subscriptions/${i}/`));
      else throw e;
    }
  });
  return problems.length > 0
    ? { problems }
    : { row: { attributes: attributes as UserCreate, subscriptions: values }, problems };
}

/** The records of a file with their line numbers and the bytes read so far, read as a stream. */
async function* records(
  path: string,
  format: Format,
): AsyncGenerator<[number, Record<string, unknown> | Error, number]> {
  const input = createReadStream(path);
  if (format === 'csv') {
    const parser = input.pipe(parseCsv({ columns: true, info: true, skip_empty_lines: true, bom: true }));
    for await (const { record, info } of parser as AsyncIterable<{
      record: Record<string, string>;
      info: { lines: number; bytes: number };
    }>) {
      const { subscription, ...user } = unflatten(record) as Record<string, unknown> & { subscription?: object };
      yield [info.lines, subscription ? { ...user, subscriptions: [subscription] } : user, info.bytes];
    }
    return;
  }
  let line = 0;
  let bytes = 0;
  for await (const text of createInterface({ input, crlfDelay: Infinity })) {
    line += 1;
    bytes += Buffer.byteLength(text) + 1;
    if (text.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      yield [line, new Error('not valid JSON'), bytes];
      continue;
    }
    const isObject = value !== null && typeof value === 'object' && !Array.isArray(value);
    yield [line, isObject ? (value as Record<string, unknown>) : new Error('not a JSON object'), bytes];
  }
}

export async function importFile(store: Store, path: string, options: ImportOptions): Promise<ImportResult> {
  const result: ImportResult = { rows: 0, created: 0, updated: 0, rejected: 0, subscriptionsAdded: 0 };
  const size = Math.max(1, statSync(path).size);
  let batch: Row[] = [];
  let emails = new Set<string>();
  const flush = async () => {
    await applyBatch(store, batch, options.audit, result);
    batch = [];
    emails = new Set();
  };
  for await (const [line, record, bytes] of records(path, options.format)) {
    result.rows += 1;
    const { row, problems } = record instanceof Error ? { problems: [record.message] } : check(record);
    if (!row) {
      result.rejected += 1;
      await write(options.report, `${JSON.stringify({ line, errors: problems })}\n`);
    } else {
      const email = row.attributes.email.toLowerCase();
      // The same user twice: the first must be stored before the second can be matched to it.
      if (emails.has(email)) await flush();
      emails.add(email);
      batch.push({ line, ...row });
      if (batch.length >= (options.batchSize ?? 500)) await flush();
    }
    options.onProgress?.(result.rows, Math.min(1, bytes / size));
  }
  await flush();
  return result;
}

async function applyBatch(store: Store, batch: Row[], audit: AuditContext, result: ImportResult): Promise<void> {
  if (batch.length === 0) return;
  const known = await store.userIdsByEmail(batch.map((r) => r.attributes.email));
  const hashes = await Promise.all(
    batch.map((r) => (r.attributes.password === undefined ? null : hashPassword(r.attributes.password))),
  );
  const fresh = batch.flatMap((row, i) =>
    known.has(row.attributes.email.toLowerCase()) ? [] : [{ row, hash: hashes[i] ?? null }],
  );
  if (fresh.length > 0) {
    await store.importUsers(
      fresh.map(({ row, hash }) => ({
        user: {
          email: row.attributes.email,
          passwordHash: hash,
          fields: toUserFields(row.attributes),
          newsletters: row.attributes.newsletters?.add ?? [],
        },
        subscriptions: row.subscriptions,
      })),
      { ...audit, attributes: ['email', 'familyName'] },
    );
    result.created += fresh.length;
    result.subscriptionsAdded += fresh.reduce((n, { row }) => n + row.subscriptions.length, 0);
  }
  const existing = batch.flatMap((row, i) => {
    const id = known.get(row.attributes.email.toLowerCase());
    return id === undefined ? [] : [{ row, id, hash: hashes[i] ?? null }];
  });
  if (existing.length === 0) return;
  const stored = groupByUser(await store.listSubscriptionsOfUsers(existing.map((e) => e.id)));
  for (const { row, id, hash } of existing) {
    await store.updateUser(
      id,
      {
        email: row.attributes.email,
        ...(hash === null ? {} : { passwordHash: hash }),
        fields: toUserFields(row.attributes),
        addNewsletters: row.attributes.newsletters?.add ?? [],
        removeNewsletters: [],
      },
      { ...audit, attributes: Object.keys(row.attributes).sort() },
    );
    result.updated += 1;
    for (const values of row.subscriptions) {
      if ((stored.get(id) ?? []).some((s) => sameSubscription(s, values))) continue;
      await store.createSubscription(id, values, { ...audit, attributes: Object.keys(values).sort() });
      result.subscriptionsAdded += 1;
    }
  }
}

/** Matched by external identifier when it has one, else by every value. */
function sameSubscription(stored: SubscriptionValues, imported: SubscriptionValues): boolean {
  if (imported.externalIdentifier !== null) return stored.externalIdentifier === imported.externalIdentifier;
  return (Object.keys(imported) as (keyof SubscriptionValues)[]).every((k) => stored[k] === imported[k]);
}
