/**
 * Users, subscriptions and the catalogue's records as JSON:API resource objects, and the JSON:API
 * query parameters that shape them: sparse fieldsets (`fields[users]`, `fields[subscriptions]`),
 * `include=subscriptions` on users, and `sort=id|-id` on lists. Values the service does not
 * support are a 400.
 */
import { Type, type Static, type TObject, type TSchema } from '@sinclair/typebox';
import { NEWSLETTERS, PRODUCTS, type CatalogueRecord, type CatalogueType } from '../../domain/catalogue.js';
import {
  NewsletterAttributes,
  NewsletterCreateAttributes,
  NewsletterMeta,
  NewsletterUpdateAttributes,
  toNewsletterAttributes,
  type Newsletter,
} from '../../domain/newsletter.js';
import {
  ProductAttributes,
  ProductCreateAttributes,
  ProductMeta,
  ProductUpdateAttributes,
  toProductAttributes,
  type Product,
} from '../../domain/product.js';
import { nowInSeconds } from '../../domain/dates.js';
import {
  RESOURCES,
  SUBSCRIPTIONS,
  SubscriptionAttributes,
  SubscriptionRelationshipsRead,
  toSubscriptionAttributes,
  toSubscriptionRelationships,
  type StoredSubscription,
} from '../../domain/subscription.js';
import { toUserAttributes, UserAttributes, USERS } from '../../domain/user.js';
import type { StoredUser } from '../../store/port.js';
import { exampleLinks, Link, resourceObject } from './documents.js';

/** A comma-separated list of some of `names`, as a query parameter whose schema says which. */
function fieldList(type: string, names: readonly string[]) {
  const name = `(${names.join('|')})`;
  return Type.Optional(
    Type.String({
      pattern: `^${name}(,${name})*$`,
      errorMessage: { pattern: `must be a comma-separated list of ${type} fields: ${names.join(', ')}` },
      description: `Only these fields of ${type} (a sparse fieldset).`,
    }),
  );
}

export const SubscriptionFields = fieldList(SUBSCRIPTIONS, [
  ...Object.keys(SubscriptionAttributes.properties),
  'product',
]);
export const UserFields = fieldList(USERS, [...Object.keys(UserAttributes.properties), 'subscriptions']);
export const IncludeSubscriptions = Type.Optional(
  Type.String({
    pattern: '^subscriptions$',
    errorMessage: { pattern: 'can only be subscriptions' },
    description: 'subscriptions: each user with its subscriptions, in `included`.',
  }),
);
export const SortById = Type.Optional(
  Type.String({
    pattern: '^-?id$',
    errorMessage: { pattern: 'can only be id or -id' },
    description: 'id (the default) or -id.',
  }),
);

/** A filter by what subscriptions give (`print`: print and print-online, by their own resource or their product's). */
export function ResourceFilter(description: string) {
  return Type.Optional(
    Type.String({
      pattern: `^(${RESOURCES.join('|')})$`,
      errorMessage: { pattern: `must be one of: ${RESOURCES.join(', ')}` },
      description,
    }),
  );
}

/** The fields a `fields[...]` parameter asks for, or undefined for all of them. */
export function fieldSet(value: string | undefined): ReadonlySet<string> | undefined {
  return value === undefined ? undefined : new Set(value.split(','));
}

function pick<T extends object>(all: T, fields: ReadonlySet<string> | undefined): Partial<T> {
  if (!fields) return all;
  return Object.fromEntries(Object.entries(all).filter(([name]) => fields.has(name))) as Partial<T>;
}

/** How many of each user's subscriptions `include=subscriptions` puts in a document at most. */
export const MAX_INCLUDED_SUBSCRIPTIONS = 20;

export const Identifier = (type: string) => Type.Object({ type: Type.Literal(type), id: Type.String() });

export const SubscriptionResource = resourceObject(
  SUBSCRIPTIONS,
  Type.Partial(SubscriptionAttributes, { description: 'Every attribute, unless fields[subscriptions] names fewer.' }),
  Type.Partial(SubscriptionRelationshipsRead),
);

const UserResourceObject = resourceObject(
  USERS,
  Type.Partial(UserAttributes, { description: 'Every attribute, unless fields[users] names fewer.' }),
  Type.Object({
    subscriptions: Type.Optional(
      Type.Object(
        {
          data: Type.Array(Identifier(SUBSCRIPTIONS)),
          links: Type.Optional(Type.Object({ related: Link })),
          meta: Type.Optional(Type.Object({ truncated: Type.Literal(true) })),
        },
        {
          description:
            `With include=subscriptions: the user's first ${MAX_INCLUDED_SUBSCRIPTIONS} subscriptions; a user with ` +
            'more has meta.truncated and links.related, their paged list.',
        },
      ),
    ),
  }) as TObject,
);

/** A user resource; in a search's page, with whether they have a subscription active now. */
export const UserResource = Type.Object({
  ...UserResourceObject.properties,
  meta: Type.Optional(
    Type.Object(
      { active: Type.Boolean() },
      { description: 'In a page of a search (filter[q]): active, whether the user has a subscription active now.' },
    ),
  ),
});

/** A reader as /docs shows them: the attributes a client most often sends, and no more. */
export const ADA = { email: 'ada@example.com', familyName: 'Lovelace', givenName: 'Ada' };
/** Where Ada's paper goes, as a delivery writes an address (every field, null when not set). */
export const ADA_ADDRESS = {
  streetAddress: '12 Park Crescent',
  unitNumber: null,
  addressLocality: 'London',
  addressRegion: null,
  addressCountry: 'GB',
  postalCode: 'W1B 1PH',
};
export const AdaResource = { type: USERS, id: '42', attributes: ADA, links: exampleLinks('/users/42') };

/** Ada's subscription as /docs shows it: what a client most often sends, and its product. */
export const SUBSCRIPTION = {
  dateStarted: '2026-05-01T00:00:00+00:00',
  license: 'individual',
  resource: 'print-online',
} as const;
export const DAILY = { product: { data: { type: PRODUCTS, id: 'daily' } } } as const;
export const AdaSubscription = {
  type: SUBSCRIPTIONS,
  id: '7',
  attributes: { ...SUBSCRIPTION, status: 'active' },
  relationships: DAILY,
  links: exampleLinks('/users/42/subscriptions/7'),
} satisfies Static<typeof SubscriptionResource>;

/** A subscription, with its status at `now`. */
export function renderSubscription(
  base: string,
  s: StoredSubscription,
  fields?: ReadonlySet<string>,
  now: number = nowInSeconds(),
) {
  const relationships = toSubscriptionRelationships(s);
  return {
    type: SUBSCRIPTIONS,
    id: s.id,
    attributes: pick(toSubscriptionAttributes(s, now), fields),
    relationships: fields && !fields.has('product') ? {} : relationships,
    links: { self: `${base}/users/${s.userId}/subscriptions/${s.id}` },
  };
}

/**
 * A user; with `subscriptions` (the first MAX_INCLUDED_SUBSCRIPTIONS of theirs, and whether
 * there are more), also the linkage to them (they go in `included`).
 */
export function renderUser(
  base: string,
  user: StoredUser,
  fields?: ReadonlySet<string>,
  subscriptions?: { first: readonly StoredSubscription[]; more: boolean },
) {
  const linked = subscriptions !== undefined && (!fields || fields.has('subscriptions'));
  const self = `${base}/users/${user.id}`;
  return {
    type: USERS,
    id: user.id,
    attributes: pick(toUserAttributes(user.email, user.fields, user.newsletters, user.lastSignInAt), fields),
    ...(linked
      ? {
          relationships: {
            subscriptions: {
              data: subscriptions.first.map((s) => ({ type: SUBSCRIPTIONS, id: s.id })),
              ...(subscriptions.more
                ? { links: { related: `${self}/subscriptions` }, meta: { truncated: true as const } }
                : {}),
            },
          },
        }
      : {}),
    links: { self },
  };
}

/** Orders by id, as `sort` asks. */
export function sorted<T extends { id: string }>(items: readonly T[], sort: string | undefined): T[] {
  const ascending = [...items].sort((a, b) => Number(a.id) - Number(b.id));
  return sort === '-id' ? ascending.reverse() : ascending;
}

/** What the routes and resources of a kind of catalogue record need to know of it. */
export interface CatalogueShape<R extends CatalogueRecord> {
  type: CatalogueType;
  schemas: { create: TObject; update: TObject; read: TSchema; meta: TSchema };
  attributes(record: R): object;
  /** A record of the kind as /docs shows it: its id, what creates it, what changes it, and as read. */
  example: { id: string; create: Record<string, unknown>; update: Record<string, unknown>; read: object };
}

/** The resource object schema of a kind: with its counts in `meta` where one is read. */
export function catalogueResource<R extends CatalogueRecord>(shape: CatalogueShape<R>) {
  const resource = resourceObject(shape.type, shape.schemas.read);
  return Type.Object({ ...resource.properties, meta: Type.Optional(shape.schemas.meta) });
}

export function renderCatalogueRecord<R extends CatalogueRecord>(
  base: string,
  shape: CatalogueShape<R>,
  record: R,
  meta?: object,
) {
  return {
    type: shape.type,
    id: record.id,
    attributes: shape.attributes(record),
    links: { self: `${base}/${shape.type}/${encodeURIComponent(record.id)}` },
    ...(meta ? { meta } : {}),
  };
}

const DAILY_CREATE = {
  name: 'The Daily',
  resource: 'print-online',
  license: 'individual',
  deliveryDays: ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'],
} satisfies Static<typeof ProductCreateAttributes>;
const DAILY_READ: Static<typeof ProductAttributes> = {
  ...DAILY_CREATE,
  description: null,
  active: true,
  createdAt: '2026-01-05T09:00:00+00:00',
  updatedAt: '2026-01-05T09:00:00+00:00',
};

export const PRODUCT_SHAPE: CatalogueShape<Product> = {
  type: PRODUCTS,
  schemas: {
    create: ProductCreateAttributes,
    update: ProductUpdateAttributes,
    read: ProductAttributes,
    meta: ProductMeta,
  },
  attributes: toProductAttributes,
  example: {
    id: DAILY.product.data.id,
    create: DAILY_CREATE,
    update: { description: 'The paper six mornings a week, and the site.' },
    read: DAILY_READ,
  },
};

const BRIEFING_CREATE = { name: 'Morning Briefing', doubleOptIn: true } satisfies Static<
  typeof NewsletterCreateAttributes
>;
const BRIEFING_READ: Static<typeof NewsletterAttributes> = {
  ...BRIEFING_CREATE,
  description: null,
  active: true,
  createdAt: '2026-01-05T09:00:00+00:00',
  updatedAt: '2026-01-05T09:00:00+00:00',
};

export const NEWSLETTER_SHAPE: CatalogueShape<Newsletter> = {
  type: NEWSLETTERS,
  schemas: {
    create: NewsletterCreateAttributes,
    update: NewsletterUpdateAttributes,
    read: NewsletterAttributes,
    meta: NewsletterMeta,
  },
  attributes: toNewsletterAttributes,
  example: {
    id: 'briefing',
    create: BRIEFING_CREATE,
    update: { active: false },
    read: BRIEFING_READ,
  },
};

export const ProductResource = catalogueResource(PRODUCT_SHAPE);

/** A kind's example record as a resource object, as a list or `included` holds it. */
export function catalogueExample<R extends CatalogueRecord>({ type, example }: CatalogueShape<R>) {
  return { type, id: example.id, attributes: example.read, links: exampleLinks(`/${type}/${example.id}`) };
}

export const DailyProduct = catalogueExample(PRODUCT_SHAPE);
