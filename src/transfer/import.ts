/**
 * `circulation import`: users and their subscriptions streamed in from NDJSON or CSV, in
 * constant memory, matched by email so that running it twice changes nothing the second time.
 * Records are checked by the same schemas and rules as the API and refused with the same texts.
 */
import { createReadStream, statSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { parse as parseCsv } from 'csv-parse';
import type { AuditContext } from '../domain/audit.js';
import { shapeProblems } from '../domain/bounds.js';
import { DomainFailure, type Problem } from '../domain/failures.js';
import { hashPassword } from '../domain/password.js';
import { CatalogueId, PRODUCT_POINTER } from '../domain/catalogue.js';
import {
  groupByUser,
  newSubscription,
  SubscriptionCreateAttributes,
  subscriptionRuleProblems,
  type SubscriptionCreate,
  type SubscriptionValues,
} from '../domain/subscription.js';
import { toUserFields, UserCreateAttributes, userRuleProblems, type UserCreate } from '../domain/user.js';
import { isRecord } from '../domain/schema.js';
import { compileSchema, MAX_PROBLEMS, problemsOf, type ValidateFunction } from '../domain/validation.js';
import type { Store } from '../store/port.js';
import { unflatten } from './csv.js';
import type { Format } from './streams.js';

export interface ImportOptions {
  format: Format;
  /** Called once for each rejected row: its line number and its problems in the file's own terms. */
  onRejected: (rejection: Rejection) => Promise<void>;
  audit: AuditContext;
  batchSize?: number;
  onProgress?: (rows: number, fraction: number) => void;
}

export interface Rejection {
  line: number;
  /** `where: detail`, where is a column of the CSV file or a field of the NDJSON record. */
  errors: string[];
}

/** What an import did, to people and subscriptions (a person on several rows counts once). */
export interface ImportResult {
  rows: number;
  /** People this import created. */
  created: number;
  /** People who were there before and whom the import matched and updated. */
  updated: number;
  rejected: number;
  subscriptionsAdded: number;
}

interface Row {
  line: number;
  attributes: UserCreate;
  subscriptions: SubscriptionValues[];
}

/**
 * The record's checks, compiled at the first record checked: every command loads this module,
 * and `serve` paid for compiling them at each start (30–40 ms) without importing anything.
 */
let validators: { user: ValidateFunction; subscription: ValidateFunction; product: ValidateFunction } | undefined;

function recordValidators() {
  validators ??= {
    user: compileSchema(UserCreateAttributes),
    subscription: compileSchema(SubscriptionCreateAttributes),
    product: compileSchema(CatalogueId),
  };
  return validators;
}

/** Problems relative to the record (`/address/addressRegion`), from pointers into a request document. */
function inRecord(problems: readonly Problem[], prefix = '', documentRoot = '/data/attributes'): Problem[] {
  return problems.map((p) => ({
    pointer: `${prefix}${p.pointer.startsWith(documentRoot) ? p.pointer.slice(documentRoot.length) : p.pointer}`,
    detail: p.detail,
  }));
}

/**
 * Where a problem is, as the file says it: a CSV column (`subscription.dateStarted`,
 * `address.addressRegion`, `newsletters`), or the path of a field in an NDJSON record
 * (`subscriptions[0].dateStarted`, `newsletters[2]`).
 */
export function whereInFile(pointer: string, format: Format): string {
  const parts = pointer.split('/').slice(1);
  // The API's `newsletters: {add: […]}` is a plain list in a file.
  if (parts[0] === 'newsletters' && parts[1] === 'add') parts.splice(1, 1);
  if (parts.length === 0) return 'the row';
  if (format === 'csv') {
    const named = parts.filter((part) => !/^\d+$/.test(part));
    if (named[0] === 'subscriptions') named[0] = 'subscription';
    return named.join('.');
  }
  return parts.reduce((path, part) => (/^\d+$/.test(part) ? `${path}[${part}]` : path ? `${path}.${part}` : part), '');
}

/** Problems as the report writes them: `where: detail`, where named as the file names it. */
function inFileTerms(problems: readonly Problem[], format: Format): string[] {
  return problems.map((p) => `${whereInFile(p.pointer, format)}: ${p.detail}`);
}

/** A record checked as the API would check it: the row, or every problem in it (record-relative). */
function check(record: Record<string, unknown>): { row?: Omit<Row, 'line'>; problems: Problem[] } {
  // The id and lastSignInAt are this service's own (read-only), as an export writes them: left out.
  const {
    subscriptions = [],
    newsletters,
    id: _id,
    lastSignInAt: _lastSignInAt,
    ...rest
  } = record as {
    subscriptions?: unknown;
    newsletters?: unknown;
    id?: unknown;
    lastSignInAt?: unknown;
  };
  // Bounded first, as a request body is: validation then reports a bounded number of problems.
  const shape = shapeProblems(record);
  if (shape.length > 0) return { problems: shape };
  const attributes = { ...rest, ...(Array.isArray(newsletters) ? { newsletters: { add: newsletters } } : {}) };
  const validate = recordValidators();
  const problems = validate.user(attributes) ? [] : problemsOf(validate.user, '');
  problems.push(...inRecord(userRuleProblems(attributes)));
  const values: SubscriptionValues[] = [];
  if (!Array.isArray(subscriptions)) problems.push({ pointer: '/subscriptions', detail: 'must be an array' });
  else {
    subscriptions.forEach((s, i) => {
      const at = `/subscriptions/${i}`;
      if (!isRecord(s)) return problems.push({ pointer: at, detail: 'must be an object' });
      const { product, id: _sid, expired: _expired, status: _status, ...subscription } = s;
      const found: Problem[] = [];
      if (product != null && !validate.product(product))
        found.push(...inRecord(problemsOf(validate.product, ''), `${at}/product`));
      if (!validate.subscription(subscription)) found.push(...inRecord(problemsOf(validate.subscription, ''), at, ''));
      found.push(...inRecord(subscriptionRuleProblems(subscription), at));
      if (found.length > 0) return problems.push(...found);
      values.push(newSubscription(subscription as SubscriptionCreate, product == null ? null : String(product)));
    });
  }
  if (problems.length > 0) return { problems: problems.slice(0, MAX_PROBLEMS) };
  return { row: { attributes: attributes as UserCreate, subscriptions: values }, problems };
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
  const progress: Progress = { result, createdIds: new IdRanges(), updatedIds: new Set() };
  let batch: Row[] = [];
  let emails = new Set<string>();
  const flush = async () => {
    await applyBatch(store, batch, options, progress);
    batch = [];
    emails = new Set();
  };
  for await (const [line, record, bytes] of records(path, options.format)) {
    result.rows += 1;
    const checked = record instanceof Error ? { problems: [{ pointer: '', detail: record.message }] } : check(record);
    const row = checked.row;
    if (!row) {
      result.rejected += 1;
      await options.onRejected({ line, errors: inFileTerms(checked.problems, options.format) });
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

/** What a run has done so far, and to whom. */
interface Progress {
  result: ImportResult;
  /** The users this run created (ids come in runs, one per batch, so ranges stay few). */
  createdIds: IdRanges;
  /**
   * The earlier users this run updated, so that a person on several rows counts once. It grows
   * with the people a file updates, not with its rows.
   */
  updatedIds: Set<string>;
}

async function applyBatch(
  store: Store,
  batch: Row[],
  options: Pick<ImportOptions, 'audit' | 'format' | 'onRejected'>,
  progress: Progress,
): Promise<void> {
  const { result } = progress;
  const { audit } = options;
  if (batch.length === 0) return;
  const known = await store.userIdsByEmail(batch.map((r) => r.attributes.email));
  // A password is hashed here; a hash brought from another system is kept as it is, verified at sign-in.
  const hashes = await Promise.all(
    batch.map(({ attributes: { password, passwordHash } }) =>
      password === undefined ? (passwordHash ?? null) : hashPassword(password),
    ),
  );
  const fresh = batch.flatMap((row, i) =>
    known.has(row.attributes.email.toLowerCase()) ? [] : [{ row, hash: hashes[i] ?? null }],
  );
  const newUser = ({ row, hash }: { row: Row; hash: string | null }) => ({
    user: {
      email: row.attributes.email,
      passwordHash: hash,
      fields: toUserFields(row.attributes),
      newsletters: row.attributes.newsletters?.add ?? [],
    },
    subscriptions: row.subscriptions,
  });
  const importAudit = { ...audit, attributes: ['email', 'familyName'] };
  const create = async (rows: typeof fresh) => {
    const ids = await store.importUsers(rows.map(newUser), importAudit);
    for (const id of ids) progress.createdIds.add(Number(id));
    result.created += rows.length;
    result.subscriptionsAdded += rows.reduce((n, { row }) => n + row.subscriptions.length, 0);
  };
  try {
    if (fresh.length > 0) await create(fresh);
  } catch (error) {
    if (!(error instanceof DomainFailure)) throw error;
    // A rule refused the batch (a reference the store refuses, say): each row alone, to find which.
    for (const one of fresh) await refusedAs(one.row, options, result, () => create([one]));
  }
  const existing = batch.flatMap((row, i) => {
    const id = known.get(row.attributes.email.toLowerCase());
    return id === undefined ? [] : [{ row, id, hash: hashes[i] ?? null }];
  });
  if (existing.length === 0) return;
  const stored = groupByUser(await store.listSubscriptionsOfUsers(existing.map((e) => e.id)));
  for (const { row, id, hash } of existing) {
    await refusedAs(row, options, result, async () => {
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
      if (!progress.createdIds.has(Number(id)) && !progress.updatedIds.has(id)) {
        progress.updatedIds.add(id);
        result.updated += 1;
      }
      for (const [index, values] of row.subscriptions.entries()) {
        if ((stored.get(id) ?? []).some((s) => sameSubscription(s, values))) continue;
        try {
          await store.createSubscription(id, values, { ...audit, attributes: Object.keys(values).sort() });
        } catch (error) {
          if (error instanceof DomainFailure) throw new DomainFailure(error.code, asImported(error.problems, index));
          throw error;
        }
        result.subscriptionsAdded += 1;
      }
    });
  }
}

/** Runs the writes of one row; a rule's refusal of them is the row's rejection, in the report. */
async function refusedAs(
  row: Row,
  options: Pick<ImportOptions, 'format' | 'onRejected'>,
  result: ImportResult,
  write: () => Promise<void>,
) {
  try {
    await write();
  } catch (error) {
    if (!(error instanceof DomainFailure)) throw error;
    result.rejected += 1;
    await options.onRejected({ line: row.line, errors: inFileTerms(asImported(error.problems), options.format) });
  }
}

/**
 * Problems as the record in the file has them: the API's pointers into a request document
 * (`/data/attributes/newsletters/add/0`, the product of subscription `index`) become pointers into
 * the record (`/newsletters/0`, `/subscriptions/<index>/product`).
 */
function asImported(problems: readonly Problem[], index?: number): Problem[] {
  return problems.map(({ pointer, detail }) => ({
    detail,
    pointer:
      pointer === PRODUCT_POINTER
        ? `/subscriptions${index === undefined ? '' : `/${index}`}/product`
        : pointer
            .replace(/^\/data\/attributes\/newsletters\/add\//, '/newsletters/')
            .replace(/^\/data\/attributes/, ''),
  }));
}

/** Matched by external identifier when it has one, else by every value. */
function sameSubscription(stored: SubscriptionValues, imported: SubscriptionValues): boolean {
  if (imported.externalIdentifier !== null) return stored.externalIdentifier === imported.externalIdentifier;
  return (Object.keys(imported) as (keyof SubscriptionValues)[]).every((k) => stored[k] === imported[k]);
}

/** A set of whole numbers kept as sorted, merged ranges: small when the numbers come in runs. */
export class IdRanges {
  private readonly ranges: [number, number][] = [];

  add(n: number): void {
    const last = this.ranges.at(-1);
    if (last && n === last[1] + 1) last[1] = n;
    else if (!this.has(n)) {
      this.ranges.push([n, n]);
      this.ranges.sort((a, b) => a[0] - b[0]);
    }
  }

  has(n: number): boolean {
    let low = 0;
    let high = this.ranges.length - 1;
    while (low <= high) {
      const middle = (low + high) >> 1;
      const [first, last] = this.ranges[middle] as [number, number];
      if (n < first) high = middle - 1;
      else if (n > last) low = middle + 1;
      else return true;
    }
    return false;
  }
}
