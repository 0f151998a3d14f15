/**
 * `circulation import`: users and their subscriptions streamed in from NDJSON or CSV, in
 * constant memory, matched by email. A row that changes nothing writes nothing (no version, no
 * audit entry, no event), so running a file twice changes nothing the second time; what a row
 * does change is written with its audit entries and events, as the API would write it.
 * Records are checked by the same schemas and rules as the API and refused with the same texts.
 */
import { statSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import type { AuditContext } from '../domain/audit.js';
import { newsletterPointer } from '../domain/catalogue.js';
import { isSuppressed, suppression, type ConsentState } from '../domain/consent.js';
import { DomainFailure, type Problem } from '../domain/failures.js';
import { hashPassword } from '../domain/password.js';
import { groupByUser, subscriptionAttributeNames, type StoredSubscription } from '../domain/subscription.js';
import { toUserFields, type UserFields } from '../domain/user.js';
import type { MatchedUser, Store } from '../store/port.js';
import { IdRanges } from './id-ranges.js';
import { asImported, checkRecord, inFileTerms, type CheckedReader, type CheckedSubscription } from './import-check.js';
import type { Leniency } from './leniency.js';
import { fileRecords } from './records.js';
import type { Format } from './streams.js';

export interface ImportOptions {
  format: Format;
  /** Called once for each refusal: a row, or subscriptions of a row whose reader was kept. */
  onRejected: (rejection: Rejection) => Promise<void>;
  audit: AuditContext;
  batchSize?: number;
  onProgress?: (rows: number, fraction: number) => void;
  leniency?: Leniency;
  /** Check and match every row, and count what would be done, writing nothing. */
  dryRun?: boolean;
  /**
   * Apply a row's password or hash to a reader who has a password already. Without it, a
   * reader's password (which they may have reset since) is never replaced by an import.
   */
  overwritePasswords?: boolean;
}

export interface Rejection {
  line: number;
  /** The row's email, when it could be read. */
  email?: string;
  /**
   * The whole row; or, of a reader imported, only the subscriptions the errors name, or the
   * newsletters the reader is suppressed for (bounced, complained: CONSENT_SUPPRESSED), which an
   * import does not put them back on.
   */
  refused: 'row' | 'subscriptions' | 'newsletters';
  /** `where: detail`, where is a column of the CSV file or a field of the NDJSON record. */
  errors: string[];
}

/** What an import did, to people and subscriptions (a person on several rows counts once). */
export interface ImportResult {
  rows: number;
  /** People this import created. */
  created: number;
  /** People who were there before, whom the import changed (or gave a subscription). */
  updated: number;
  /** People who were there before, whom the import matched and left as they were. */
  unchanged: number;
  /** Rows refused whole. */
  rejected: number;
  subscriptionsAdded: number;
  /** Subscriptions refused, of readers imported. */
  subscriptionsRejected: number;
  /** Newsletters a row adds a reader to who is suppressed for them (left out, and reported). */
  newslettersSuppressed: number;
}

interface Row extends CheckedReader {
  line: number;
}

/** The key a person is matched by. */
const keyOf = (row: Row) => row.attributes.email.toLowerCase();

export async function importFile(store: Store, path: string, options: ImportOptions): Promise<ImportResult> {
  const run = new Run(store, options);
  const size = Math.max(1, statSync(path).size);
  let batch: Row[] = [];
  let emails = new Set<string>();
  const flush = async () => {
    await run.apply(batch);
    batch = [];
    emails = new Set();
  };
  for await (const item of fileRecords(path, options.format)) {
    run.result.rows += 1;
    if ('broken' in item) await run.refuse(item.line, item.broken.email, 'row', item.broken.problems);
    else {
      const checked = checkRecord(item.record, options.leniency ?? {});
      const errors = inFileTerms(checked.problems, options.format);
      if (!checked.reader) await run.refuse(item.line, checked.email, 'row', errors);
      else {
        if (checked.refusedSubscriptions > 0) {
          run.result.subscriptionsRejected += checked.refusedSubscriptions;
          await run.refuse(item.line, checked.email, 'subscriptions', errors);
        }
        const row = { line: item.line, ...checked.reader };
        // The same person twice: the first must be stored before the second can be matched to them.
        if (emails.has(keyOf(row))) await flush();
        emails.add(keyOf(row));
        batch.push(row);
        if (batch.length >= (options.batchSize ?? 500)) await flush();
      }
    }
    options.onProgress?.(run.result.rows, Math.min(1, item.bytes / size));
  }
  await flush();
  return run.finish();
}

/** One import under way: what it has done so far, and to whom. */
class Run {
  readonly result: ImportResult = {
    rows: 0,
    created: 0,
    updated: 0,
    unchanged: 0,
    rejected: 0,
    subscriptionsAdded: 0,
    subscriptionsRejected: 0,
    newslettersSuppressed: 0,
  };
  /** The people this run created (ids come in runs, one per batch, so ranges stay few). */
  private readonly createdIds = new IdRanges();
  /** The people there before whom this run matched: in a file exported in id order, a few ranges. */
  private readonly matchedIds = new IdRanges();
  /** Of those, the ones it changed. It grows with the people a file changes, not with its rows. */
  private readonly updatedIds = new Set<string>();
  /** On a dry run, the people it would have created, which later rows then match. */
  private readonly plannedEmails = new Set<string>();

  constructor(
    private readonly store: Store,
    private readonly options: ImportOptions,
  ) {}

  async refuse(line: number, email: string | undefined, refused: Rejection['refused'], errors: string[]) {
    if (refused === 'row') this.result.rejected += 1;
    await this.options.onRejected({ line, ...(email === undefined ? {} : { email }), refused, errors });
  }

  finish(): ImportResult {
    this.result.updated = this.updatedIds.size;
    this.result.unchanged = this.matchedIds.size - this.updatedIds.size;
    return this.result;
  }

  /** Creates the batch's new people and brings the known ones up to their rows. */
  async apply(batch: Row[]): Promise<void> {
    if (batch.length === 0) return;
    const matched = await this.store.users.byEmail(batch.map((r) => r.attributes.email));
    const fresh = batch.filter((row) => !matched.has(keyOf(row)));
    if (this.options.dryRun) this.plan(fresh);
    else await this.create(fresh);
    const known = batch.flatMap((row) => {
      const found = matched.get(keyOf(row));
      return found ? [{ row, found }] : [];
    });
    if (known.length === 0) return;
    const stored = groupByUser(await this.store.subscriptions.listOfUsers(known.map((k) => k.found.user.id)));
    for (const { row, found } of known) await this.bringUpToDate(row, found, stored.get(found.user.id) ?? []);
  }

  /** On a dry run, what creating them would have done. */
  private plan(fresh: Row[]) {
    for (const row of fresh) {
      if (!this.plannedEmails.has(keyOf(row))) this.result.created += 1;
      this.plannedEmails.add(keyOf(row));
      this.result.subscriptionsAdded += row.subscriptions.length;
    }
  }

  /** Creates them in one transaction; when a rule refuses that, each alone, to find which. */
  private async create(fresh: Row[]) {
    if (fresh.length === 0) return;
    const hashes = await Promise.all(fresh.map(({ attributes }) => hashOf(attributes)));
    try {
      await this.insert(fresh.map((row, i) => ({ row, hash: hashes[i] ?? null, subscriptions: row.subscriptions })));
    } catch (error) {
      if (!(error instanceof DomainFailure)) throw error;
      for (const [i, row] of fresh.entries()) await this.createAlone(row, hashes[i] ?? null);
    }
  }

  /**
   * One person alone: a subscription refused (a product STRICT_REFERENCES refuses) is left out
   * and reported, and the person is created without it; any other refusal refuses the row.
   */
  private async createAlone(row: Row, hash: string | null) {
    try {
      await this.insert([{ row, hash, subscriptions: row.subscriptions }]);
      return;
    } catch (error) {
      if (!(error instanceof DomainFailure)) throw error;
      const refused = refusedSubscriptions(error.problems, row.subscriptions);
      if (refused === undefined) return this.refuseWrite(row, error.problems);
      try {
        await this.insert([{ row, hash, subscriptions: row.subscriptions.filter((s) => !refused.has(s.index)) }]);
      } catch (again) {
        if (!(again instanceof DomainFailure)) throw again;
        return this.refuseWrite(row, again.problems);
      }
      this.result.subscriptionsRejected += refused.size;
      await this.refuse(row.line, row.attributes.email, 'subscriptions', this.terms(error.problems));
    }
  }

  private async insert(people: { row: Row; hash: string | null; subscriptions: CheckedSubscription[] }[]) {
    const ids = await this.store.users.import(
      people.map(({ row, hash, subscriptions }) => ({
        user: {
          email: row.attributes.email,
          passwordHash: hash,
          fields: toUserFields(row.attributes),
          newsletters: row.attributes.newsletters?.add ?? [],
        },
        subscriptions: subscriptions.map((s) => s.values),
        attributes: row.names,
      })),
      this.options.audit,
    );
    for (const id of ids) this.createdIds.add(Number(id));
    this.result.created += people.length;
    this.result.subscriptionsAdded += people.reduce((n, p) => n + p.subscriptions.length, 0);
  }

  /** A known person: what of the row they lack is written, each subscription on its own. */
  private async bringUpToDate(row: Row, found: MatchedUser, stored: StoredSubscription[]) {
    const { id } = found.user;
    const createdHere = this.createdIds.has(Number(id));
    if (!createdHere) this.matchedIds.add(Number(id));
    const changed = () => {
      if (!createdHere) this.updatedIds.add(id);
    };
    const changes = userChanges(row, found, this.options.overwritePasswords ?? false);
    if (changes.suppressed.length > 0) {
      this.result.newslettersSuppressed += changes.suppressed.length;
      await this.refuse(row.line, row.attributes.email, 'newsletters', this.terms(changes.suppressed));
    }
    if (changes.names.length > 0) {
      try {
        if (!this.options.dryRun) {
          const hash = changes.password ? await hashOf(row.attributes) : undefined;
          await this.store.users.update(
            id,
            {
              ...(hash === undefined ? {} : { passwordHash: hash }),
              fields: changes.fields,
              addNewsletters: changes.addNewsletters,
              removeNewsletters: [],
              newsletterSource: 'import',
            },
            { ...this.options.audit, attributes: changes.names },
          );
        }
        changed();
      } catch (error) {
        if (!(error instanceof DomainFailure)) throw error;
        return this.refuseWrite(row, inRow(error.problems, changes.addIndexes));
      }
    }
    for (const { index, values } of row.subscriptions) {
      if (stored.some((s) => sameSubscription(s, values))) continue;
      try {
        if (!this.options.dryRun) {
          const audit = { ...this.options.audit, attributes: subscriptionAttributeNames(values) };
          const created = await this.store.subscriptions.create(id, values, audit);
          if (created) stored.push(created);
        }
      } catch (error) {
        if (!(error instanceof DomainFailure)) throw error;
        this.result.subscriptionsRejected += 1;
        await this.refuse(row.line, row.attributes.email, 'subscriptions', this.terms(error.problems, index));
        continue;
      }
      this.result.subscriptionsAdded += 1;
      changed();
    }
  }

  /** A row whose writes a rule refused (a reference the store refuses, say): refused, in the report. */
  private async refuseWrite(row: Row, problems: readonly Problem[]) {
    await this.refuse(row.line, row.attributes.email, 'row', this.terms(problems));
  }

  private terms(problems: readonly Problem[], index?: number): string[] {
    return inFileTerms(asImported(problems, index), this.options.format);
  }
}

/** The hash to store for a row: its password hashed, or the hash it brings (verified at sign-in). */
async function hashOf({ password, passwordHash }: Row['attributes']): Promise<string | null> {
  return password === undefined ? (passwordHash ?? null) : hashPassword(password);
}

/**
 * The indexes of the subscriptions (in the record) a refusal of a whole person names, when it
 * names nothing else: `/subscriptions/<n>/…` points at the n-th subscription written.
 */
function refusedSubscriptions(problems: readonly Problem[], written: CheckedSubscription[]): Set<number> | undefined {
  const indexes = new Set<number>();
  for (const { pointer } of problems) {
    const n = /^\/subscriptions\/(\d+)\//.exec(pointer)?.[1];
    const subscription = n === undefined ? undefined : written[Number(n)];
    if (!subscription) return undefined;
    indexes.add(subscription.index);
  }
  return indexes.size > 0 ? indexes : undefined;
}

/** What a row changes of a known person, and the attributes it changes, as a request would name them. */
export interface RowChanges {
  fields: UserFields;
  addNewsletters: string[];
  /** Where each of them is in the row's newsletters. */
  addIndexes: number[];
  /** The newsletters of the row the reader is suppressed for, each at its place in the row: left out. */
  suppressed: Problem[];
  /** Whether the row's password (or hash) is to be applied. */
  password: boolean;
  /** Empty when the row changes nothing. */
  names: string[];
}

/**
 * What a row changes of a person: the fields whose values differ, the newsletters they have no
 * consent to yet, or left (not those they are on or pending for, nor those they are suppressed
 * for, which are reported instead), and the password when they have none (or
 * `overwritePasswords`, and it is another hash).
 * Their family name is not made blank by a row that leaves it blank (--allow-blank-family-name).
 * Their email is never changed: it matched, and its letter case stays as the row that created them wrote it.
 */
export function userChanges(row: CheckedReader, found: MatchedUser, overwritePasswords: boolean): RowChanges {
  const names = new Set<string>();
  const fields: UserFields = {};
  for (const [field, value] of Object.entries(toUserFields(row.attributes))) {
    if (sameValue(value, found.user.fields[field])) continue;
    // A blank family name (--allow-blank-family-name) is one the row does not give: kept.
    if (field === 'familyName' && value === '') continue;
    fields[field] = value;
    names.add(field.split('.')[0] as string);
  }
  const addNewsletters: string[] = [];
  const addIndexes: number[] = [];
  const suppressed: Problem[] = [];
  const seen = new Set<string>();
  (row.attributes.newsletters?.add ?? []).forEach((newsletter, index) => {
    if (seen.has(newsletter)) return;
    seen.add(newsletter);
    const state = found.consents.get(newsletter);
    if (isSuppressed(state)) suppressed.push(suppression(newsletter, state as ConsentState, newsletterPointer(index)));
    else if (state !== 'subscribed' && state !== 'pending') {
      addNewsletters.push(newsletter);
      addIndexes.push(index);
    }
  });
  if (addNewsletters.length > 0) names.add('newsletters');
  const { password, passwordHash } = row.attributes;
  const brought = password !== undefined || passwordHash !== undefined;
  const applies =
    brought &&
    (found.passwordHash === null ||
      (overwritePasswords && (password !== undefined || passwordHash !== found.passwordHash)));
  if (applies) names.add(password !== undefined ? 'password' : 'passwordHash');
  return { fields, addNewsletters, addIndexes, suppressed, password: applies, names: [...names].sort() };
}

/**
 * A refusal of the newsletters a row adds, pointing at each where the row has it: the write names
 * only those the reader is not on yet, so its `add/<n>` counts among them alone.
 */
function inRow(problems: readonly Problem[], addIndexes: readonly number[]): Problem[] {
  return problems.map(({ pointer, detail }) => {
    const n = /^\/data\/attributes\/newsletters\/add\/(\d+)$/.exec(pointer)?.[1];
    const index = n === undefined ? undefined : addIndexes[Number(n)];
    return { detail, pointer: index === undefined ? pointer : newsletterPointer(index) };
  });
}

/** Field values as stored: text, or a JSON document (demographics); absent and null alike. */
function sameValue(a: unknown, b: unknown): boolean {
  if ((a ?? null) === (b ?? null)) return true;
  return typeof a === 'object' && typeof b === 'object' && JSON.stringify(a) === JSON.stringify(b);
}

/** Matched by external identifier when it has one, else by every value. */
function sameSubscription(stored: StoredSubscription, imported: CheckedSubscription['values']): boolean {
  if (imported.externalIdentifier !== null) return stored.externalIdentifier === imported.externalIdentifier;
  // By value: a site licence's ranges and domains are lists.
  return (Object.keys(imported) as (keyof typeof imported)[]).every((k) => isDeepStrictEqual(stored[k], imported[k]));
}
