/**
 * The user resource: its attribute schemas (write and read), the rules a schema cannot say,
 * and the mapping between nested attributes and the flat fields a store keeps.
 */
import { Type, type Static } from '@sinclair/typebox';
import { formatInstant } from './dates.js';
import { CatalogueId } from './catalogue.js';
import type { Problem } from './failures.js';
import { isCommonPassword, PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH, passwordHashProblem } from './password.js';
import { isRecord, Nullable, Text } from './schema.js';
import { withRules } from './validation.js';

export const USERS = 'users' as const;

export const Email = Type.String({
  format: 'email',
  maxLength: 254,
  errorMessage: { format: 'must be a valid email address' },
  description: 'Unique, compared without regard to letter case.',
});

const FamilyName = Type.String({
  maxLength: 100,
  pattern: '\\S',
  errorMessage: { pattern: "can't be blank" },
});

export const Password = Type.String({
  minLength: PASSWORD_MIN_LENGTH,
  maxLength: PASSWORD_MAX_LENGTH,
  writeOnly: true,
  description:
    'Stored only as an argon2id hash; never returned. One of the 10,000 most common passwords is refused (is too common).',
});

const PASSWORD_HASH_MAX_LENGTH = 512;

const PasswordHash = Type.String({
  maxLength: PASSWORD_HASH_MAX_LENGTH,
  writeOnly: true,
  description:
    'Instead of password, for readers brought from another system: their bcrypt ($2a$, $2b$, $2y$) or argon2 (PHC ' +
    'string) hash, verified at sign-in and then replaced by an argon2id hash of today. Admin credentials only; never returned.',
});

/**
 * A newsletter a user leaves: any id a membership may hold, including those that were in use
 * before the catalogue held them to its pattern, so that those can still be left.
 */
const LeftNewsletterId = Type.String({
  minLength: 1,
  maxLength: 64,
  pattern: '^\\S+$',
  errorMessage: { pattern: 'must not contain white space' },
});

const NewsletterChanges = Type.Object(
  {
    add: Type.Optional(Type.Array(CatalogueId, { maxItems: 100 })),
    remove: Type.Optional(Type.Array(LeftNewsletterId, { maxItems: 100 })),
  },
  { additionalProperties: false, description: 'Newsletter ids to add to and remove from the user.' },
);

const UNSET_IS_NULL = 'null when none of its fields is set (and sending null clears every field).';

/** A postal address: a user's, and a temporary address's (domain/temporary-address.ts). */
export const Address = Type.Object(
  {
    streetAddress: Text(200),
    unitNumber: Text(50),
    addressLocality: Text(100),
    addressRegion: Text(100, { description: 'At most two characters when addressCountry is US or CA.' }),
    addressCountry: Text(3, {
      pattern: '^[A-Za-z]{2,3}$',
      errorMessage: { pattern: 'must be a two- or three-letter country code' },
    }),
    postalCode: Text(20),
  },
  { additionalProperties: false, description: `The postal address; ${UNSET_IS_NULL}` },
);

const WorksFor = Type.Object(
  { legalName: Text(200), telephone: Text(50) },
  { additionalProperties: false, description: `The employer; ${UNSET_IS_NULL}` },
);

const Demographics = Type.Object(
  { recommendations: Type.Optional(Type.Array(Type.String({ maxLength: 100 }), { maxItems: 100 })) },
  { additionalProperties: false, description: `What is known of the reader; null when not set.` },
);

/** Attributes kept as flat fields: nested objects of strings become `group.key` fields. */
const profile = {
  honorificPrefix: Text(50),
  givenName: Text(100),
  additionalName: Text(100),
  honorificSuffix: Text(50),
  address: Type.Optional(Nullable(Address)),
  circulationNumber: Text(50),
  internalNotes: Text(5000),
  jobTitle: Text(100),
  worksFor: Type.Optional(Nullable(WorksFor)),
  telephone: Text(50),
  cellNumber: Text(50),
  faxNumber: Text(50),
  demographics: Type.Optional(Nullable(Demographics)),
};

const NESTED_GROUPS = {
  address: Object.keys(Address.properties),
  worksFor: Object.keys(WorksFor.properties),
} as const;

export const UserCreateAttributes = withRules(
  Type.Object(
    {
      email: Email,
      password: Type.Optional(Password),
      passwordHash: Type.Optional(PasswordHash),
      familyName: FamilyName,
      ...profile,
      newsletters: Type.Optional(NewsletterChanges),
    },
    { additionalProperties: false },
  ),
  userRuleProblems,
);

export const UserUpdateAttributes = withRules(
  // Stryker disable next-line ObjectLiteral: Partial keeps the create schema's additionalProperties: false
  Type.Partial(UserCreateAttributes, { additionalProperties: false }),
  userRuleProblems,
);

export const UserAttributes = Type.Object({
  email: Type.String(),
  familyName: Type.String(),
  ...Type.Required(Type.Object(profile)).properties,
  newsletters: Type.Array(Type.String()),
  lastSignInAt: Nullable(
    Type.String({ format: 'date-time', description: 'When the reader last signed in (POST /sign-ins); read-only.' }),
  ),
});

/**
 * Whether an update would change nothing: no attribute sent, or newsletters with nothing to add
 * or remove. Such an update is answered as it stands, without a new version, an audit entry or
 * an event, which would tell every other system of a change that did not happen.
 */
export function updatesNothing(attributes: UserUpdate): boolean {
  const { newsletters, ...others } = attributes;
  return Object.keys(others).length === 0 && !newsletters?.add?.length && !newsletters?.remove?.length;
}

export type UserCreate = Static<typeof UserCreateAttributes>;
export type UserUpdate = Static<typeof UserUpdateAttributes>;
export type UserRead = Static<typeof UserAttributes>;

/** A flat profile field (`givenName`, `address.postalCode`, …) and its value. */
export type UserFields = Record<string, unknown>;

/** Every flat profile field a store keeps, derived from the schema. */
export const USER_FIELDS: readonly string[] = [
  'familyName',
  ...Object.keys(profile).flatMap((key) =>
    key in NESTED_GROUPS ? NESTED_GROUPS[key as keyof typeof NESTED_GROUPS].map((sub) => `${key}.${sub}`) : [key],
  ),
];

/** The nested attributes kept as flat fields, each with its own fields in order. */
export const USER_GROUPS: Readonly<Record<string, readonly string[]>> = NESTED_GROUPS;

/** Profile fields whose value is a JSON document rather than text. */
export const USER_JSON_FIELDS: readonly string[] = ['demographics'];

/** The profile fields a write sets; a nested object replaces all of its fields. */
export function toUserFields(attributes: UserUpdate): UserFields {
  const fields: UserFields = {};
  for (const [key, value] of Object.entries(attributes)) {
    if (key === 'email' || key === 'password' || key === 'passwordHash' || key === 'newsletters') continue;
    const group = NESTED_GROUPS[key as keyof typeof NESTED_GROUPS];
    if (group) {
      const nested = (value ?? {}) as Record<string, unknown>;
      for (const sub of group) fields[`${key}.${sub}`] = nested[sub] ?? null;
    } else {
      fields[key] = value ?? null;
    }
  }
  return fields;
}

/** Where each flat field goes in the attributes, worked out once. */
const FIELD_PLACES = new Map(
  USER_FIELDS.map((field) => {
    const dot = field.indexOf('.');
    return [
      field,
      dot === -1 ? { group: undefined, key: field } : { group: field.slice(0, dot), key: field.slice(dot + 1) },
    ];
  }),
);

/**
 * The read attributes of a stored user (`lastSignInAt` in epoch seconds). A nested object none of
 * whose fields is set reads as null, as `demographics` does and as a client clears one: what is
 * sent is what reads back.
 */
export function toUserAttributes(
  email: string,
  fields: UserFields,
  newsletters: string[],
  lastSignInAt: number | null,
): UserRead {
  const attributes: Record<string, unknown> = { email };
  for (const group of Object.keys(NESTED_GROUPS)) attributes[group] = null;
  for (const field in fields) {
    const place = FIELD_PLACES.get(field);
    if (!place) continue;
    const value = fields[field];
    if (place.group === undefined) attributes[place.key] = value;
    else if (value !== null && value !== undefined) {
      attributes[place.group] ??= emptyGroup(place.group);
      (attributes[place.group] as Record<string, unknown>)[place.key] = value;
    }
  }
  attributes.newsletters = newsletters;
  attributes.lastSignInAt = lastSignInAt === null ? null : formatInstant(lastSignInAt);
  return attributes as UserRead;
}

/** A nested object with every field null, to be filled. */
function emptyGroup(group: string): Record<string, unknown> {
  return Object.fromEntries(NESTED_GROUPS[group as keyof typeof NESTED_GROUPS].map((key) => [key, null]));
}

const TWO_LETTER_REGION_COUNTRIES = new Set(['US', 'USA', 'CA', 'CAN']);

/**
 * Rules across fields, which the schema cannot state. They may read attributes the schema
 * refused (so that every problem is reported at once), so they look only at well-typed values.
 */
export function userRuleProblems(attributes: unknown): Problem[] {
  const problems: Problem[] = [];
  if (!isRecord(attributes)) return problems;
  problems.push(...addressProblems(attributes.address, '/data/attributes/address'));
  problems.push(...passwordProblems(attributes));
  const newsletters = attributes.newsletters;
  if (isRecord(newsletters) && Array.isArray(newsletters.add) && Array.isArray(newsletters.remove)) {
    const removed = new Set(newsletters.remove);
    for (const id of new Set(newsletters.add)) {
      if (typeof id === 'string' && removed.has(id)) {
        problems.push({
          pointer: '/data/attributes/newsletters',
          detail: `newsletter ${id} cannot be both added and removed`,
        });
      }
    }
  }
  return problems;
}

/** What the schema cannot say of an address at `pointer`: a US or Canadian region is a two-letter code. */
export function addressProblems(address: unknown, pointer: string): Problem[] {
  if (
    isRecord(address) &&
    typeof address.addressRegion === 'string' &&
    typeof address.addressCountry === 'string' &&
    TWO_LETTER_REGION_COUNTRIES.has(address.addressCountry.toUpperCase()) &&
    address.addressRegion.length > 2
  ) {
    return [
      { pointer: `${pointer}/addressRegion`, detail: 'must be at most two characters when addressCountry is US or CA' },
    ];
  }
  return [];
}

/**
 * A password and a hash of one exclude each other; a password must not be common; a hash must be
 * one we can verify. Values of the wrong type are the schema's to report.
 */
function passwordProblems(attributes: Record<string, unknown>): Problem[] {
  const password = boundedString(attributes.password, PASSWORD_MAX_LENGTH);
  const passwordHash = boundedString(attributes.passwordHash, PASSWORD_HASH_MAX_LENGTH);
  if (password !== undefined && passwordHash !== undefined) {
    return [{ pointer: '/data/attributes/passwordHash', detail: 'cannot be sent with password; send one of them' }];
  }
  const problems: Problem[] = [];
  if (password !== undefined) problems.push(...newPasswordProblems(password, '/data/attributes/password'));
  const hashProblem = passwordHash === undefined ? undefined : passwordHashProblem(passwordHash);
  if (hashProblem !== undefined) problems.push({ pointer: '/data/attributes/passwordHash', detail: hashProblem });
  return problems;
}

/** What a schema cannot say of a new password (its length it can): that it is too common. */
export function newPasswordProblems(password: string, pointer: string): Problem[] {
  return isCommonPassword(password) ? [{ pointer, detail: 'is too common' }] : [];
}

/** A string no longer than its schema allows, or undefined: a rule never works on a value the schema refused. */
function boundedString(value: unknown, maxLength: number): string | undefined {
  return typeof value === 'string' && value.length <= maxLength ? value : undefined;
}
