/**
 * The user resource: its attribute schemas (write and read), the rules a schema cannot say,
 * and the mapping between nested attributes and the flat fields a store keeps.
 */
import { Type, type Static } from '@sinclair/typebox';
import { CatalogueId } from './catalogue.js';
import type { Problem } from './failures.js';
import { Nullable, Text } from './schema.js';

export const USERS = 'users';

const Email = Type.String({
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

const Password = Type.String({
  minLength: 8,
  maxLength: 256,
  writeOnly: true,
  description: 'Stored only as an argon2id hash; never returned.',
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

const Address = Type.Object(
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
  { additionalProperties: false },
);

const WorksFor = Type.Object({ legalName: Text(200), telephone: Text(50) }, { additionalProperties: false });

const Demographics = Type.Object(
  { recommendations: Type.Optional(Type.Array(Type.String({ maxLength: 100 }), { maxItems: 100 })) },
  { additionalProperties: false },
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

export const UserCreateAttributes = Type.Object(
  {
    email: Email,
    password: Type.Optional(Password),
    familyName: FamilyName,
    ...profile,
    newsletters: Type.Optional(NewsletterChanges),
  },
  { additionalProperties: false },
);

export const UserUpdateAttributes = Type.Partial(UserCreateAttributes, { additionalProperties: false });

export const UserAttributes = Type.Object({
  email: Type.String(),
  familyName: Type.String(),
  ...Type.Required(Type.Object(profile)).properties,
  newsletters: Type.Array(Type.String()),
});

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

/** Profile fields whose value is a JSON document rather than text. */
export const USER_JSON_FIELDS: readonly string[] = ['demographics'];

/** The profile fields a write sets; a nested object replaces all of its fields. */
export function toUserFields(attributes: UserUpdate): UserFields {
  const fields: UserFields = {};
  for (const [key, value] of Object.entries(attributes)) {
    if (key === 'email' || key === 'password' || key === 'newsletters') continue;
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

/** The read attributes of a stored user. */
export function toUserAttributes(email: string, fields: UserFields, newsletters: string[]): UserRead {
  const attributes: Record<string, unknown> = { email };
  for (const group of Object.keys(NESTED_GROUPS)) attributes[group] = {};
  for (const field in fields) {
    const place = FIELD_PLACES.get(field);
    if (!place) continue;
    if (place.group === undefined) attributes[place.key] = fields[field];
    else (attributes[place.group] as Record<string, unknown>)[place.key] = fields[field];
  }
  attributes.newsletters = newsletters;
  return attributes as UserRead;
}

const TWO_LETTER_REGION_COUNTRIES = new Set(['US', 'USA', 'CA', 'CAN']);

/** Rules across fields, which the schema cannot state. */
export function userRuleProblems(attributes: UserUpdate): Problem[] {
  const problems: Problem[] = [];
  const address = attributes.address;
  if (
    address?.addressRegion != null &&
    address.addressCountry != null &&
    TWO_LETTER_REGION_COUNTRIES.has(address.addressCountry.toUpperCase()) &&
    address.addressRegion.length > 2
  ) {
    problems.push({
      pointer: '/data/attributes/address/addressRegion',
      detail: 'must be at most two characters when addressCountry is US or CA',
    });
  }
  const removed = new Set(attributes.newsletters?.remove ?? []);
  for (const id of attributes.newsletters?.add ?? []) {
    if (removed.has(id)) {
      problems.push({
        pointer: '/data/attributes/newsletters',
        detail: `newsletter ${id} cannot be both added and removed`,
      });
    }
  }
  return problems;
}
