/**
 * Every constraint a write schema declares, as cases: the walk of a resource's TypeBox create
 * schemas (a string's maxLength gives a value of that length, which is taken, and one a character
 * longer, which is refused at the field's pointer; minLength, minItems, maxItems, minimum and
 * maximum alike; an enum or const each allowed value and one that is none; a pattern or format the
 * values of its example; a required member left out; an unknown member added at every level). The
 * table keeps up with the schemas by itself: a pattern or format with no example fails until it has
 * one. test/domain/schema-constraints.test.ts checks every case against the compiled validator;
 * test/http/schema-constraints.test.ts that each route validates by that schema.
 */
import assert from 'node:assert/strict';
import { Type, type TSchema } from '@sinclair/typebox';
import { ApiKeyCreateAttributes } from '../../src/domain/api-key.js';
import { DeliveryComplaintCreateAttributes } from '../../src/domain/delivery-complaint.js';
import { HoldCreateAttributes } from '../../src/domain/hold.js';
import { NewsletterCreateAttributes } from '../../src/domain/newsletter.js';
import { PrivacyRequestCreateAttributes, PrivacyRequestRelationships } from '../../src/domain/privacy-request.js';
import { ProductCreateAttributes } from '../../src/domain/product.js';
import { isRecord, type ErrorMessages } from '../../src/domain/schema.js';
import { StaffCreateAttributes } from '../../src/domain/staff.js';
import { SubscriptionCreateAttributes, SubscriptionRelationships } from '../../src/domain/subscription.js';
import { TemporaryAddressCreateAttributes } from '../../src/domain/temporary-address.js';
import { UserCreateAttributes } from '../../src/domain/user.js';
import { compileSchema, everyProblemOf, rulesOf, withRules } from '../../src/domain/validation.js';
import { WebhookCreateAttributes } from '../../src/domain/webhooks.js';

/** A JSON Schema as TypeBox writes it, read loosely: the walk looks only at the keywords it knows. */
interface Schema {
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean;
  items?: Schema;
  enum?: unknown[];
  const?: unknown;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
  minimum?: number;
  maximum?: number;
  pattern?: string;
  format?: string;
  writeOnly?: boolean;
  errorMessage?: ErrorMessages;
}

let counter = 0;
/** A number no other value of this run has, so that values meant to be unique are. */
const unique = () => `${process.pid}n${(counter += 1)}`;

/** A string of exactly `length` characters that starts with `head` (cut when longer). */
const padded = (head: string, length: number, fill = 'x') => (head + fill.repeat(Math.max(0, length))).slice(0, length);

/** Text of no common password, so that a password is refused for its length alone. */
const plain = (length: number) => 'Zq7#vB2!'.repeat(Math.ceil(length / 8) + 1).slice(0, length);

/** Values of a pattern or format: one of any length it can take, and some it refuses. */
interface Examples {
  fits: (length: number) => string;
  breaks: string[];
}

const PATTERNS: Record<string, Examples> = {
  '\\S': { fits: plain, breaks: ['   ', '\t\n'] },
  '^\\S+$': { fits: plain, breaks: ['daily news', ' daily'] },
  '^[A-Za-z]{2,3}$': { fits: (length) => padded('GB', length, 'R'), breaks: ['G1', 'G', 'G-B'] },
  '^[1-9][0-9]{0,14}$': { fits: () => '12', breaks: ['0', '012', '1234567890123456', '1a', ' 12', '12\n'] },
  '^(?!\\.\\.?$)[A-Za-z0-9._-]+$': {
    fits: (length) => padded(`id.${unique()}-`, length),
    breaks: ['.', '..', 'a b', 'a/b', 'ä'],
  },
};

const FORMATS: Record<string, Examples> = {
  email: {
    fits: (length) => {
      const domain = '@example.com';
      return padded(`r${unique()}.`, length - domain.length, 'a') + domain;
    },
    breaks: ['reader@localhost', 'no-at-sign.example.com', 'a@b@example.com', 'reader@-example.com'],
  },
  'date-time': {
    fits: () => '2025-01-01T00:00:00+00:00',
    breaks: [
      '2025-01-01',
      '2025-01-01T00:00:00',
      '2025-02-30T00:00:00Z',
      '12025-01-01T00:00:00Z',
      '2025-01-01T00:00:00Zjunk',
      '9999-12-31T23:59:00-00:01',
    ],
  },
  date: {
    fits: () => '2025-01-01',
    breaks: ['2025-1-01', '2025-02-30', '1899-12-31', '12025-01-01', '2025-01-01T00:00:00Z', '2025-01-01junk'],
  },
  'endpoint-url': {
    fits: (length) => padded('http://127.0.0.1/', length, 'a'),
    breaks: ['ftp://127.0.0.1/', 'http://user:pw@127.0.0.1/', 'http://127.0.0.1/#top', 'not a url', '/relative'],
  },
};

/**
 * Optional members an object carries beside the case's, where a rule refuses it without them: an
 * address of no member but the one a case sets to null is blank, which a temporary address is not.
 */
const OBJECTS: Record<string, Record<string, unknown>> = {
  '/data/attributes/address': { streetAddress: '1 Main Street', addressLocality: 'Springfield' },
};

/**
 * Fields with values of their own: a password, which the test client looks for in every response
 * (so no other field may carry its text), and those a rule holds to more than their schema says,
 * with values the rule takes at any length the schema allows (an imported hash must be verifiable).
 */
const FIELDS: Record<string, (length: number) => string> = {
  '/data/attributes/ipRanges/0': (length) => cidrOfLength(length),
  '/data/attributes/emailDomains/0': (length) => domainOfLength(length),
  '/data/attributes/password': (length) => padded(`Pw${unique()}!`, length, 'q'),
  '/data/attributes/passwordHash': (length) =>
    padded(`$argon2id$v=19$m=4096,t=1,p=1$c2FsdHNhbHRzYWx0c2FsdA$`, length, 'A'),
};

/**
 * A range a licence takes, of `length` characters (25 to 49: an IPv6 network of zero-padded groups,
 * its last two an IPv4 address from 44 on), each of another network; text of that length beyond.
 */
function cidrOfLength(length: number): string {
  const second = (counter += 1).toString(16).padStart(4, '0').slice(-4);
  const zeros = (groups: number, width: number) =>
    Array.from({ length: groups }, (_, i) => '0'.repeat(Math.floor(width / groups) + (i < width % groups ? 1 : 0)));
  if (length >= 25 && length <= 43) return [`2001`, second, ...zeros(6, length - 19)].join(':') + '/128';
  if (length >= 44 && length <= 49) return [`2001`, second, ...zeros(4, length - 33), '255.255.255.255/128'].join(':');
  return padded('x', length);
}

/**
 * A domain a licence takes, of `length` characters (up to 253, and 255 as a wildcard): a unique
 * first label, then labels of 63 letters, under example; text of that length beyond.
 */
function domainOfLength(length: number): string {
  if (length > 255 || length < 16) return padded('x', length);
  const wildcard = length > 253 ? '*.' : '';
  const core = padded(`u${unique()}`, length - wildcard.length - '.example'.length, 'a').split('');
  for (let i = 63; i < core.length - 1; i += 64) core[i] = '.';
  return `${wildcard}${core.join('')}.example`;
}

const typesOf = (schema: Schema) => ([] as string[]).concat(schema.type ?? []);
const nullable = (schema: Schema) => typesOf(schema).includes('null') || schema.enum?.includes(null) === true;
const typeOf = (schema: Schema) => typesOf(schema).find((t) => t !== 'null');

function examplesOf(schema: Schema, pointer: string): Examples | undefined {
  const field = FIELDS[pointer];
  if (field) return { fits: field, breaks: [] };
  if (schema.format !== undefined) {
    const examples = FORMATS[schema.format];
    assert.ok(examples, `${pointer}: format ${schema.format} has no examples in this test; add them to FORMATS`);
    return examples;
  }
  if (schema.pattern !== undefined) {
    const examples = PATTERNS[schema.pattern];
    assert.ok(examples, `${pointer}: pattern ${schema.pattern} has no examples in this test; add them to PATTERNS`);
    return examples;
  }
  return undefined;
}

/** A string the schema takes, of `length` characters when given (else of 40, or its bound). */
function text(schema: Schema, pointer: string, length?: number): string {
  const wanted = length ?? Math.min(Math.max(schema.minLength ?? 0, 40), schema.maxLength ?? Infinity);
  const value = (examplesOf(schema, pointer)?.fits ?? plain)(wanted);
  // A format of fixed length (a timestamp) has no example of another: only a bound's length must hold.
  if (length !== undefined)
    assert.equal(value.length, wanted, `${pointer}: an example of ${wanted} characters is ${value.length}`);
  return value;
}

/** A value the schema takes: what a valid document carries there when the case is elsewhere. */
function sample(schema: Schema, pointer: string): unknown {
  if (schema.const !== undefined) return schema.const;
  if (schema.enum) return schema.enum.find((v) => v !== null);
  switch (typeOf(schema)) {
    case 'object':
      return {
        ...OBJECTS[pointer],
        ...Object.fromEntries(
          (schema.required ?? []).map((name) => [name, sample(schema.properties?.[name] ?? {}, `${pointer}/${name}`)]),
        ),
      };
    case 'array':
      return items(schema, pointer, Math.max(schema.minItems ?? 0, 1));
    case 'string':
      return text(schema, pointer);
    case 'integer':
    case 'number':
      return schema.minimum ?? 1;
    case 'boolean':
      return true;
    default:
      assert.fail(`${pointer}: no sample for ${JSON.stringify(schema).slice(0, 200)}`);
  }
}

/** `count` items the array takes, all different (an enum's values in order). */
function items(schema: Schema, pointer: string, count: number): unknown[] {
  const item = schema.items ?? {};
  if (item.enum) {
    const values = item.enum.filter((v) => v !== null);
    assert.ok(values.length >= count, `${pointer}: ${count} different items of an enum of ${values.length}`);
    return values.slice(0, count);
  }
  return Array.from({ length: count }, () => sample(item, `${pointer}/0`));
}

/** One request of the table: the document it sends, and whether it is taken or refused where. */
export interface Case {
  name: string;
  pointer: string;
  /** The root (attributes or relationships) with the case's value in place, built anew at each call. */
  root: () => unknown;
  taken: boolean;
  /** The detail a refusal gives at the pointer, when the schema says which. */
  detail?: string;
  /** For a taken string, whether it is read back as sent. */
  readBack?: string;
}

/**
 * Puts a value at one place of the root: a function of the walk down to that place, which fills the
 * rest with samples made anew at each call, so that no two requests share a value meant to be unique.
 */
type Place = (value: unknown) => unknown;

const UNKNOWN = 'notAnAttribute';

function casesOf(schema: Schema, pointer: string, place: Place, inAttributes: boolean): Case[] {
  const cases: Case[] = [];
  const taken = (name: string, value: unknown, readBack?: string) =>
    cases.push({
      name,
      pointer,
      root: () => place(value),
      taken: true,
      ...(readBack === undefined ? {} : { readBack }),
    });
  const refused = (name: string, value: unknown, detail?: string) =>
    cases.push({ name, pointer, root: () => place(value), taken: false, ...(detail === undefined ? {} : { detail }) });

  if (nullable(schema)) taken('null', null);
  const type = typeOf(schema);
  if (schema.const !== undefined) {
    taken(`the const ${JSON.stringify(schema.const)}`, schema.const);
    refused('another value than the const', `not-${String(schema.const)}`);
    return cases;
  }
  if (schema.enum) {
    for (const value of schema.enum.filter((v) => v !== null)) taken(`the enum value ${String(value)}`, value);
    const allowed = schema.enum.filter((v) => v !== null).join(', ');
    refused('a value outside the enum', 'not-one-of-them', `must be one of: ${allowed}`);
    refused('a number', 1);
    return cases;
  }
  switch (type) {
    case 'object': {
      const base = () => sample(schema, pointer) as Record<string, unknown>;
      for (const name of schema.required ?? []) {
        cases.push({
          name: `without the required ${name}`,
          pointer: `${pointer}/${name}`,
          root: () => {
            const { [name]: _left, ...rest } = base();
            return place(rest);
          },
          taken: false,
          detail: inAttributes ? "can't be blank" : `${name} is missing`,
        });
      }
      if (schema.additionalProperties === false) {
        cases.push({
          name: 'with an unknown member',
          pointer: `${pointer}/${UNKNOWN}`,
          root: () => place({ ...base(), [UNKNOWN]: 'x' }),
          taken: false,
          detail: inAttributes ? `${UNKNOWN} is not a known attribute` : `${UNKNOWN} is not allowed here`,
        });
      }
      refused('an array for an object', []);
      if (!nullable(schema)) refused('null for an object', null, "can't be blank");
      for (const [name, member] of Object.entries(schema.properties ?? {})) {
        cases.push(
          ...casesOf(member, `${pointer}/${name}`, (value) => place({ ...base(), [name]: value }), inAttributes),
        );
      }
      return cases;
    }
    case 'array': {
      const min = schema.minItems ?? 0;
      if (min > 0) {
        taken(`${min} items, the fewest`, items(schema, pointer, min));
        refused(`${min - 1} items, one too few`, items(schema, pointer, min - 1));
      }
      if (schema.maxItems !== undefined) {
        taken(`${schema.maxItems} items, the most`, items(schema, pointer, schema.maxItems));
        const over = schema.items?.enum
          ? [...items(schema, pointer, schema.maxItems), ...items(schema, pointer, 1)]
          : items(schema, pointer, schema.maxItems + 1);
        refused(
          `${schema.maxItems + 1} items, one too many`,
          over,
          `has too many items (maximum is ${schema.maxItems})`,
        );
      }
      if (schema.uniqueItems) {
        const [first] = items(schema, pointer, 1);
        refused('the same item twice', [first, first]);
      }
      refused('a string for an array', 'x');
      const rest = () => items(schema, pointer, Math.max(min, 1)).slice(1);
      cases.push(...casesOf(schema.items ?? {}, `${pointer}/0`, (value) => place([value, ...rest()]), inAttributes));
      return cases;
    }
    case 'string': {
      const readBack = schema.writeOnly ? undefined : 'as sent';
      const lengthOf = (length: number) => text(schema, pointer, length);
      if (schema.maxLength !== undefined) {
        const value = lengthOf(schema.maxLength);
        taken(`${schema.maxLength} characters, the most`, value, readBack && value);
        taken(`${schema.maxLength - 1} characters, just inside`, lengthOf(schema.maxLength - 1));
        refused(
          `${schema.maxLength + 1} characters, one too many`,
          lengthOf(schema.maxLength + 1),
          `is too long (maximum is ${schema.maxLength} characters)`,
        );
      }
      if (schema.minLength !== undefined && schema.minLength > 0) {
        taken(`${schema.minLength} characters, the fewest`, lengthOf(schema.minLength));
        refused(
          `${schema.minLength - 1} characters, one too few`,
          lengthOf(schema.minLength - 1),
          `is too short (minimum is ${schema.minLength} characters)`,
        );
      }
      const examples = examplesOf(schema, pointer);
      const keyword = schema.format !== undefined ? 'format' : 'pattern';
      for (const bad of examples?.breaks ?? []) {
        refused(`${JSON.stringify(bad)}, not of its ${keyword}`, bad, schema.errorMessage?.[keyword]);
      }
      refused('a number for a string', 1);
      refused('an array for a string', [text(schema, pointer)]);
      if (!nullable(schema)) refused('null', null);
      return cases;
    }
    case 'integer': {
      if (schema.minimum !== undefined) {
        taken(`${schema.minimum}, the least`, schema.minimum);
        refused(`${schema.minimum - 1}, one too few`, schema.minimum - 1, `must be at least ${schema.minimum}`);
      }
      if (schema.maximum !== undefined) {
        taken(`${schema.maximum}, the most`, schema.maximum);
        refused(`${schema.maximum + 1}, one too many`, schema.maximum + 1, `must be at most ${schema.maximum}`);
      }
      refused('a fraction', 1.5);
      refused('a string for an integer', '1');
      return cases;
    }
    case 'boolean': {
      taken('true', true);
      taken('false', false);
      refused('a string for a boolean', 'true', 'must be true or false');
      return cases;
    }
    default:
      assert.fail(`${pointer}: no cases for ${JSON.stringify(schema).slice(0, 200)}`);
  }
}

/** A resource as it is created: its type, and the schemas of its document. */
export interface Resource {
  type: string;
  /** Attributes every document of the table carries unless its case sets them: what the others are checked under. */
  given?: Record<string, unknown>;
  /** TypeBox schemas, read by the walk as plain JSON Schema. */
  attributes: object;
  relationships?: object;
}

export const RESOURCES: Resource[] = [
  { type: 'users', attributes: UserCreateAttributes },
  {
    type: 'subscriptions',
    attributes: SubscriptionCreateAttributes,
    relationships: SubscriptionRelationships,
    // A site licence, which alone takes ipRanges, emailDomains and seats.
    given: { license: 'site' },
  },
  { type: 'products', attributes: ProductCreateAttributes },
  { type: 'newsletters', attributes: NewsletterCreateAttributes },
  { type: 'webhooks', attributes: WebhookCreateAttributes },
  { type: 'api-keys', attributes: ApiKeyCreateAttributes },
  { type: 'staff', attributes: StaffCreateAttributes },
  { type: 'holds', attributes: HoldCreateAttributes },
  { type: 'temporary-addresses', attributes: TemporaryAddressCreateAttributes },
  { type: 'delivery-complaints', attributes: DeliveryComplaintCreateAttributes },
  {
    type: 'privacy-requests',
    attributes: PrivacyRequestCreateAttributes,
    relationships: PrivacyRequestRelationships,
  },
];

/** Every case of a resource, each with the document it sends (built anew: emails unique) and what it expects. */
export function resourceCases(resource: Resource): { name: string; document: () => unknown; expected: Case }[] {
  const roots = [
    { key: 'attributes', schema: resource.attributes as Schema },
    ...(resource.relationships ? [{ key: 'relationships', schema: resource.relationships as Schema }] : []),
  ];
  return roots.flatMap(({ key, schema }) =>
    casesOf(schema, `/data/${key}`, (root) => root, key === 'attributes').map((expected) => ({
      name: `${expected.pointer}: ${expected.name}`,
      document: () => {
        const attributes = {
          ...resource.given,
          ...(sample(resource.attributes as Schema, '/data/attributes') as object),
        };
        const root = expected.root();
        return {
          data: {
            type: resource.type,
            attributes,
            [key]:
              key === 'attributes' && typeof root === 'object' && root !== null && !Array.isArray(root)
                ? { ...resource.given, ...root }
                : root,
          },
        };
      },
      expected,
    })),
  );
}

/** A document the schemas take, of samples (built anew: emails unique). */
export function sampleDocument(resource: Resource): { data: { type: string; attributes: Record<string, unknown> } } {
  const attributes = sample(resource.attributes as Schema, '/data/attributes') as object;
  return { data: { type: resource.type, attributes: { ...resource.given, ...attributes } } };
}

/** The attribute at a pointer inside the returned resource, or undefined where there is none. */
export function at(document: unknown, pointer: string): unknown {
  let value = document;
  for (const name of pointer.split('/').slice(1)) {
    if (typeof value !== 'object' || value === null) return undefined;
    value = (value as Record<string, unknown>)[name];
  }
  return value;
}

/**
 * Whether the resource read back has the written field's place: not so for what a write says as a
 * change (a user's `newsletters.add`, read back as the list of newsletters).
 */
export function readsBackAt(document: unknown, pointer: string): boolean {
  const parent = at(document, pointer.slice(0, pointer.lastIndexOf('/')));
  return typeof parent === 'object' && parent !== null && !Array.isArray(parent);
}

/**
 * The problems of a document creating the resource, as its route finds them: the attributes' and
 * relationships' schemas inside a document, and the attributes' rules applied to its attributes.
 */
export function validatorOf(resource: Resource) {
  const document = Type.Object({
    data: Type.Object({
      type: Type.Literal(resource.type),
      attributes: resource.attributes as TSchema,
      relationships: Type.Optional(
        (resource.relationships ?? Type.Object({}, { additionalProperties: false })) as TSchema,
      ),
    }),
  });
  const rules = rulesOf(resource.attributes);
  if (rules)
    withRules(document, (body) => rules(isRecord(body) && isRecord(body.data) ? body.data.attributes : undefined));
  const validate = compileSchema(document);
  return (body: unknown) => everyProblemOf(validate, document, body, '/data/attributes');
}
