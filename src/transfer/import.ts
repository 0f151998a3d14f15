/**
 * `circulation import`: users and their subscriptions streamed in from NDJSON or CSV, in
 * constant memory, matched by email so that running it twice changes nothing the second time.
 * Records are checked by the same schemas and rules as the API and refused with the same texts.
 */
import { createReadStream, statSync } from 'node:fs';
import { createInterface } from 'node:readline';
import type { Writable } from 'node:stream';
import { parse as parseCsv } from 'csv-parse';
import type { AuditContext } from '../domain/audit.js';
import { shapeProblems } from '../domain/bounds.js';
import { DomainFailure, type Problem } from '../domain/failures.js';
import { hashPassword } from '../domain/password.js';
import {
  groupByUser,
  newSubscription,
  ProductId,
  SubscriptionCreateAttributes,
  type SubscriptionCreate,
  type SubscriptionValues,
} from '../domain/subscription.js';
import { toUserFields, UserCreateAttributes, userRuleProblems, type UserCreate } from '../domain/user.js';
import { compileSchema, problemsOf } from '../domain/validation.js';
import type { Store } from '../store/port.js';
import { unflatten } from './csv.js';
import { write, type Format } from './streams.js';

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

const validateUser = compileSchema(UserCreateAttributes);
const validateSubscription = compileSchema(SubscriptionCreateAttributes);
const validateProduct = compileSchema(ProductId);

/** Problems as the report writes them: `where: detail`, where is the path in the record. */
function texts(problems: readonly Problem[], prefix: string, attributesAt = ''): string[] {
  return problems.map((p) => `${prefix}${p.pointer.slice(attributesAt.length + 1)}: ${p.detail}`);
}

/** A record checked as the API would check it: the row, or the problems as `where: detail` texts. */
function check(record: Record<string, unknown>): { row?: Omit<Row, 'line'>; problems: string[] } {
  const {
    subscriptions = [],
    newsletters,
    id: _id,
    ...rest
  } = record as {
    subscriptions?: unknown[];
    newsletters?: unknown;
    id?: unknown;
  };
  // Bounded first, as a request body is: validation then reports a bounded number of problems.
  const shape = shapeProblems(record);
  if (shape.length > 0) return { problems: texts(shape, '') };
  const attributes = { ...rest, ...(Array.isArray(newsletters) ? { newsletters: { add: newsletters } } : {}) };
  const problems: string[] = [];
  if (!validateUser(attributes)) problems.push(...texts(problemsOf(validateUser, ''), ''));
  else problems.push(...texts(userRuleProblems(attributes as UserCreate), '', '/data/attributes'));
  const values: SubscriptionValues[] = [];
  (Array.isArray(subscriptions) ? subscriptions : []).forEach((s, i) => {
    const where = `subscriptions/${i}/`;
    if (s === null || typeof s !== 'object' || Array.isArray(s))
      return problems.push(`subscriptions/${i}: must be an object`);
    const { product, id: _sid, expired: _expired, ...subscription } = s as Record<string, unknown>;
    if (product != null && !validateProduct(product)) {
      return problems.push(...texts(problemsOf(validateProduct, ''), `${where}product`));
    }
    if (!validateSubscription(subscription))
      return problems.push(...texts(problemsOf(validateSubscription, ''), where));
    try {
      values.push(newSubscription(subscription as SubscriptionCreate, product == null ? null : String(product)));
    } catch (e) {
      if (e instanceof DomainFailure) problems.push(...texts(e.problems, where, '/data/attributes'));
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
