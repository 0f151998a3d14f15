/**
 * A record of an import file checked as the API would check it, by the same schemas and rules,
 * after import's leniency (leniency.ts): the reader it gives, with the subscriptions that pass,
 * and every problem, named as the file names the field (a CSV column or an NDJSON path). A
 * subscription's problems refuse that subscription; the reader's refuse the row.
 */
import { sentAttributeNames } from '../domain/audit.js';
import { shapeProblems } from '../domain/bounds.js';
import { CatalogueId, PRODUCT_POINTER } from '../domain/catalogue.js';
import type { Problem } from '../domain/failures.js';
import { isRecord } from '../domain/schema.js';
import {
  newSubscription,
  SubscriptionCreateAttributes,
  subscriptionCreateRuleProblems,
  type SubscriptionCreate,
  type SubscriptionValues,
} from '../domain/subscription.js';
import { UserCreateAttributes, userRuleProblems, type UserCreate } from '../domain/user.js';
import { compileSchema, MAX_PROBLEMS, problemsOf, type ValidateFunction } from '../domain/validation.js';
import { lenientRecord, undatedHint, type Leniency } from './leniency.js';
import type { Format } from './streams.js';

/** A subscription of a record that passed, with its place in the record's list. */
export interface CheckedSubscription {
  index: number;
  values: SubscriptionValues;
}

/** A reader as a record gives them. */
export interface CheckedReader {
  attributes: UserCreate;
  /** The attributes the record sets, as a request's would be named in the audit trail. */
  names: string[];
  subscriptions: CheckedSubscription[];
}

export interface Checked {
  /** The reader, unless a problem of theirs refuses the row. */
  reader?: CheckedReader;
  /** The record's email, when it has one that can be read (for the report). */
  email?: string;
  /** Every problem of a refused row; or, of a reader kept, those of the subscriptions refused. */
  problems: Problem[];
  /** How many of its subscriptions are refused. */
  refusedSubscriptions: number;
}

/**
 * The record's checks, compiled at the first record checked: every command loads this module,
 * and `serve` paid for compiling them at each start without importing anything.
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

/** A record (a file's, with its `subscriptions` listed) checked after import's leniency. */
export function checkRecord(record: Record<string, unknown>, leniency: Leniency): Checked {
  const read = lenientRecord(record, leniency);
  const email = typeof read.email === 'string' && read.email !== '' ? read.email : undefined;
  // The id and lastSignInAt are this service's own (read-only), as an export writes them: left out.
  const {
    subscriptions = [],
    newsletters,
    id: _id,
    lastSignInAt: _lastSignInAt,
    ...rest
  } = read as {
    subscriptions?: unknown;
    newsletters?: unknown;
    id?: unknown;
    lastSignInAt?: unknown;
  };
  // Bounded first, as a request body is: validation then reports a bounded number of problems.
  const shape = shapeProblems(read);
  if (shape.length > 0) return { email, problems: shape, refusedSubscriptions: 0 };
  const attributes = { ...rest, ...(Array.isArray(newsletters) ? { newsletters: { add: newsletters } } : {}) };
  const validate = recordValidators();
  let problems = validate.user(attributes) ? [] : problemsOf(validate.user, '');
  // The empty family name leniency gives (--allow-blank-family-name) breaks only the API's rule.
  if (leniency.allowBlankFamilyName && read.familyName === '') {
    problems = problems.filter((p) => p.pointer !== '/familyName');
  }
  problems.push(...inRecord(userRuleProblems(attributes)));
  const passed: CheckedSubscription[] = [];
  const refused: Problem[] = [];
  let refusedSubscriptions = 0;
  if (!Array.isArray(subscriptions)) problems.push({ pointer: '/subscriptions', detail: 'must be an array' });
  else {
    subscriptions.forEach((s: unknown, index) => {
      const found = subscriptionProblems(s, `/subscriptions/${index}`, leniency, record, index);
      if (found.length > 0) {
        refusedSubscriptions += 1;
        return refused.push(...found);
      }
      const { product, id: _sid, expired: _expired, status: _status, ...subscription } = s as Record<string, unknown>;
      const values = newSubscription(subscription as SubscriptionCreate, product == null ? null : String(product));
      passed.push({ index, values });
    });
  }
  if (problems.length > 0) {
    return { email, problems: [...problems, ...refused].slice(0, MAX_PROBLEMS), refusedSubscriptions: 0 };
  }
  return {
    email,
    reader: { attributes: attributes as UserCreate, names: sentAttributeNames(attributes), subscriptions: passed },
    problems: refused.slice(0, MAX_PROBLEMS),
    refusedSubscriptions,
  };
}

/** The problems of one subscription of a record, at `at`; a date in an order not given is said to be one. */
function subscriptionProblems(
  s: unknown,
  at: string,
  leniency: Leniency,
  original: Record<string, unknown>,
  index: number,
): Problem[] {
  if (!isRecord(s)) return [{ pointer: at, detail: 'must be an object' }];
  const validate = recordValidators();
  const { product, id: _sid, expired: _expired, status: _status, ...subscription } = s;
  const found: Problem[] = [];
  if (product != null && !validate.product(product))
    found.push(...inRecord(problemsOf(validate.product, ''), `${at}/product`));
  if (!validate.subscription(subscription)) found.push(...inRecord(problemsOf(validate.subscription, ''), at, ''));
  found.push(...inRecord(subscriptionCreateRuleProblems(subscription), at));
  const given = (original.subscriptions as unknown[] | undefined)?.[index];
  return found.map((p) => {
    const field = p.pointer.slice(at.length + 1);
    const hint = isRecord(given) ? undatedHint(given[field], leniency.dateFormat) : undefined;
    return hint === undefined ? p : { pointer: p.pointer, detail: hint };
  });
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
export function inFileTerms(problems: readonly Problem[], format: Format): string[] {
  return problems.map((p) => `${whereInFile(p.pointer, format)}: ${p.detail}`);
}

/**
 * Problems as the record in the file has them: the API's pointers into a request document
 * (`/data/attributes/newsletters/add/0`, the product of subscription `index`) become pointers into
 * the record (`/newsletters/0`, `/subscriptions/<index>/product`).
 */
export function asImported(problems: readonly Problem[], index?: number): Problem[] {
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
