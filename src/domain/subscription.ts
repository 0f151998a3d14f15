/**
 * The subscription resource: its schemas, the date rules, expiry, and its status at an instant.
 * Dates travel as ISO-8601 text and are kept as epoch seconds. A subscription's status is worked
 * out when it is read, from its dates and `expired`, and never stored, so it cannot go stale.
 */
import { Type, type Static } from '@sinclair/typebox';
import { CatalogueId, PRODUCTS } from './catalogue.js';
import { DeliveryDays, isSubsetOf, maskOf, weekdaysOf, WEEKDAYS } from './delivery-days.js';
import { formatInstant, parseInstant } from './dates.js';
import { failures, type Problem } from './failures.js';
import { isRecord, Nullable, StringEnum } from './schema.js';
import { withRules } from './validation.js';
import {
  MAX_EMAIL_DOMAINS,
  MAX_IP_RANGES,
  MAX_RANGE_LENGTH,
  MAX_SEATS,
  normalDomains,
  normalRanges,
  siteTermProblems,
} from './site-licence.js';

export const SUBSCRIPTIONS = 'subscriptions';

export const LICENSES = ['individual', 'free', 'site'] as const;
export const RESOURCES = ['online', 'print', 'print-online'] as const;
export type License = (typeof LICENSES)[number];
export type Resource = (typeof RESOURCES)[number];

const Instant = Type.String({
  format: 'date-time',
  errorMessage: {
    format:
      'must be an ISO-8601 timestamp with a UTC offset, such as 2025-01-31T00:00:00+00:00, in the years 0000 to 9999 in UTC',
  },
  description: 'ISO-8601 with a UTC offset; returned in UTC, to the second.',
});

/**
 * Where a subscription stands at an instant: not begun, running, past its dateEnded (until it
 * lapses), or expired (by the expire operation or by lapsing).
 */
export const SUBSCRIPTION_STATUSES = ['scheduled', 'active', 'ended', 'expired'] as const;
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];

export const SubscriptionCreateAttributes = withRules(
  Type.Object(
    {
      dateStarted: Instant,
      dateEnded: Type.Optional(Nullable(Instant)),
      externalIdentifier: Type.Optional(Nullable(Type.String({ maxLength: 255 }))),
      license: Type.Optional(Nullable(StringEnum(LICENSES))),
      resource: Type.Optional(Nullable(StringEnum(RESOURCES))),
      trial: Type.Optional(Type.Boolean({ default: false })),
      deliveryDays: Type.Optional(
        Nullable(
          DeliveryDays(
            "The weekdays its print edition is delivered on: some of its product's (422 otherwise); null or left out for all of them.",
          ),
        ),
      ),
      ipRanges: Type.Optional(
        Nullable(
          Type.Array(Type.String({ maxLength: MAX_RANGE_LENGTH }), {
            maxItems: MAX_IP_RANGES,
            description:
              'A site licence only: the networks it gives access to, in CIDR (10.0.0.0/8, 2001:db8::/32; a bare address is a /32 or /128), ' +
              'no wider than a /8 (IPv4) or a /32 (IPv6), with no host bits set, no leading zeros and no zone id. ' +
              'Returned in one written form (RFC 5952 for IPv6). Null or [] for none.',
          }),
        ),
      ),
      emailDomains: Type.Optional(
        Nullable(
          Type.Array(Type.String({ maxLength: 255 }), {
            maxItems: MAX_EMAIL_DOMAINS,
            description:
              'A site licence only: readers whose email is at one of these domains have its access. acme.com is that domain ' +
              'exactly (not evilacme.com, not x.acme.com); *.acme.com every domain below it. Compared case-insensitively, ' +
              'returned in lower case; a public suffix (com, co.uk) is refused. Null or [] for none.',
          }),
        ),
      ),
      seats: Type.Optional(
        Nullable(
          Type.Integer({
            minimum: 1,
            maximum: MAX_SEATS,
            description: 'A site licence only: how many readers it may name as seat holders; null for none.',
          }),
        ),
      ),
    },
    { additionalProperties: false },
  ),
  subscriptionCreateRuleProblems,
);

export const SubscriptionUpdateAttributes = withRules(
  // Stryker disable next-line ObjectLiteral: Partial keeps the create schema's additionalProperties: false
  Type.Partial(SubscriptionCreateAttributes, { additionalProperties: false }),
  subscriptionRuleProblems,
);

export const SubscriptionAttributes = Type.Object({
  dateStarted: Type.String({ format: 'date-time' }),
  dateEnded: Nullable(Type.String({ format: 'date-time' })),
  externalIdentifier: Nullable(Type.String()),
  license: Nullable(StringEnum(LICENSES)),
  resource: Nullable(StringEnum(RESOURCES)),
  trial: Type.Boolean(),
  expired: Type.Boolean(),
  deliveryDays: Nullable(
    Type.Array(StringEnum(WEEKDAYS), { description: "Its own delivery days; null for every one of its product's." }),
  ),
  ipRanges: Type.Optional(
    Type.Array(Type.String(), { description: 'A site licence only (absent on others): its networks, in CIDR.' }),
  ),
  emailDomains: Type.Optional(
    Type.Array(Type.String(), { description: 'A site licence only (absent on others): its email domains.' }),
  ),
  seats: Type.Optional(Nullable(Type.Integer({ description: 'A site licence only (absent on others): its seats.' }))),
  status: StringEnum(SUBSCRIPTION_STATUSES, {
    description:
      'Read-only, worked out when read: scheduled before dateStarted; active from dateStarted until dateEnded; ended after dateEnded; expired once expired.',
  }),
});

export type SubscriptionCreate = Static<typeof SubscriptionCreateAttributes>;
export type SubscriptionUpdate = Static<typeof SubscriptionUpdateAttributes>;
export type SubscriptionRead = Static<typeof SubscriptionAttributes>;

/** What a store keeps of a subscription, apart from its ids and `expired`. */
export interface SubscriptionValues {
  dateStarted: number;
  dateEnded: number | null;
  externalIdentifier: string | null;
  license: License | null;
  resource: Resource | null;
  trial: boolean;
  productId: string | null;
  /** Its own delivery days (a mask, see delivery-days.ts), or null for its product's. */
  deliveryDays: number | null;
  /** A site licence's networks and email domains, in their written form (site-licence.ts); [] on others. */
  ipRanges: string[];
  emailDomains: string[];
  seats: number | null;
}

export interface StoredSubscription extends SubscriptionValues {
  id: string;
  userId: string;
  expired: boolean;
  /** Goes up by one with every change: the resource's ETag. */
  version: number;
}

/** The values of a new subscription; throws the 422 when the dates are out of order. */
export function newSubscription(attributes: SubscriptionCreate, productId: string | null): SubscriptionValues {
  const values = checked({
    dateStarted: instant(attributes.dateStarted),
    dateEnded: attributes.dateEnded == null ? null : instant(attributes.dateEnded),
    externalIdentifier: attributes.externalIdentifier ?? null,
    license: attributes.license ?? null,
    resource: attributes.resource ?? null,
    trial: attributes.trial ?? false,
    productId,
    deliveryDays: attributes.deliveryDays == null ? null : maskOf(attributes.deliveryDays),
    ipRanges: normalRanges(attributes.ipRanges ?? []),
    emailDomains: normalDomains(attributes.emailDomains ?? []),
    seats: attributes.seats ?? null,
  });
  requireSiteLicence(values, attributes);
  return values;
}

/**
 * The attributes (and the `product` relationship) a subscription holds a value for, as a request
 * would name them: what its creation names when no request sent it (an import). A boolean always
 * holds one.
 */
export function subscriptionAttributeNames(values: SubscriptionValues): string[] {
  const held: Record<string, unknown> = {
    dateStarted: values.dateStarted,
    dateEnded: values.dateEnded,
    externalIdentifier: values.externalIdentifier,
    license: values.license,
    resource: values.resource,
    trial: values.trial,
    product: values.productId,
    deliveryDays: values.deliveryDays,
    ipRanges: values.ipRanges.length > 0 ? values.ipRanges : null,
    emailDomains: values.emailDomains.length > 0 ? values.emailDomains : null,
    seats: values.seats,
  };
  return Object.keys(held)
    .filter((name) => held[name] !== null)
    .sort();
}

/** The current values with the sent attributes applied; only what was sent changes. */
export function changedSubscription(
  current: SubscriptionValues,
  attributes: SubscriptionUpdate,
  productId: string | null | undefined,
): SubscriptionValues {
  const next: SubscriptionValues = { ...current };
  if (attributes.dateStarted !== undefined) next.dateStarted = instant(attributes.dateStarted);
  if (attributes.dateEnded !== undefined) {
    next.dateEnded = attributes.dateEnded === null ? null : instant(attributes.dateEnded);
  }
  if (attributes.externalIdentifier !== undefined) next.externalIdentifier = attributes.externalIdentifier;
  if (attributes.license !== undefined) next.license = attributes.license;
  if (attributes.resource !== undefined) next.resource = attributes.resource;
  if (attributes.trial !== undefined) next.trial = attributes.trial;
  if (productId !== undefined) next.productId = productId;
  if (attributes.deliveryDays !== undefined) {
    next.deliveryDays = attributes.deliveryDays === null ? null : maskOf(attributes.deliveryDays);
  }
  if (attributes.ipRanges !== undefined) next.ipRanges = normalRanges(attributes.ipRanges ?? []);
  if (attributes.emailDomains !== undefined) next.emailDomains = normalDomains(attributes.emailDomains ?? []);
  if (attributes.seats !== undefined) next.seats = attributes.seats;
  requireSiteLicence(next, attributes);
  // Only a write that sends a date is held to the order of dates: expiry may end a
  // subscription before the start it had planned.
  const sendsDate = attributes.dateStarted !== undefined || attributes.dateEnded !== undefined;
  return sendsDate ? checked(next) : next;
}

const SITE_TERMS = ['ipRanges', 'emailDomains', 'seats'] as const;

/** Whether a subscription holds any of a site licence's terms. */
function holdsSiteTerms(values: Pick<SubscriptionValues, 'ipRanges' | 'emailDomains' | 'seats'>): boolean {
  return values.ipRanges.length > 0 || values.emailDomains.length > 0 || values.seats !== null;
}

/**
 * Refuses a site licence's terms on a subscription of another licence, at each term the write
 * sent, or at its license when it sent only that: a licence that stops being a site licence
 * gives up its networks, domains and seats in the same write (sent as null or []).
 */
function requireSiteLicence(next: SubscriptionValues, sent: SubscriptionUpdate): void {
  if (next.license === 'site' || !holdsSiteTerms(next)) return;
  const held = {
    ipRanges: next.ipRanges.length > 0,
    emailDomains: next.emailDomains.length > 0,
    seats: next.seats !== null,
  };
  const named = SITE_TERMS.filter((term) => held[term] && sent[term] !== undefined);
  if (named.length > 0) {
    throw failures.invalid(
      named.map((term) => ({
        pointer: `/data/attributes/${term}`,
        detail: 'is for a site licence only (license site)',
      })),
    );
  }
  throw failures.invalid([
    {
      pointer: '/data/attributes/license',
      detail: `must stay site while the subscription has ${SITE_TERMS.filter((t) => held[t]).join(', ')}: send them as null in the same write`,
    },
  ]);
}

/** Its status at `now` (epoch seconds): active when dateStarted <= now < dateEnded and not expired. */
export function subscriptionStatus(
  s: Pick<StoredSubscription, 'dateStarted' | 'dateEnded' | 'expired'>,
  now: number,
): SubscriptionStatus {
  if (s.expired) return 'expired';
  if (s.dateStarted > now) return 'scheduled';
  if (s.dateEnded !== null && s.dateEnded <= now) return 'ended';
  return 'active';
}

/** Its read attributes, with its status at `now`. */
export function toSubscriptionAttributes(s: StoredSubscription, now: number): SubscriptionRead {
  return {
    dateStarted: formatInstant(s.dateStarted),
    dateEnded: s.dateEnded === null ? null : formatInstant(s.dateEnded),
    externalIdentifier: s.externalIdentifier,
    license: s.license,
    resource: s.resource,
    trial: s.trial,
    expired: s.expired,
    deliveryDays: s.deliveryDays === null ? null : weekdaysOf(s.deliveryDays),
    ...(s.license === 'site' ? { ipRanges: s.ipRanges, emailDomains: s.emailDomains, seats: s.seats } : {}),
    status: subscriptionStatus(s, now),
  };
}

const DATES_OUT_OF_ORDER: Problem = { pointer: '/data/attributes/dateEnded', detail: 'must not be before dateStarted' };

/**
 * The order of the dates a write sends, checked with the schema's problems so that every problem
 * is reported at once (an update is checked against the stored dates too, by `changedSubscription`).
 */
export function subscriptionRuleProblems(attributes: unknown): Problem[] {
  if (!isRecord(attributes)) return [];
  return [...dateOrderProblems(attributes), ...siteLicenceProblems(attributes)];
}

/** The same of a new subscription, whose licence is none when it names none. */
export function subscriptionCreateRuleProblems(attributes: unknown): Problem[] {
  if (!isRecord(attributes)) return [];
  return subscriptionRuleProblems({ ...attributes, license: attributes.license ?? null });
}

function dateOrderProblems(attributes: Record<string, unknown>): Problem[] {
  if (typeof attributes.dateStarted !== 'string' || typeof attributes.dateEnded !== 'string') return [];
  // A date that is no timestamp is the schema's to report: as NaN it is never out of order.
  const started = parseInstant(attributes.dateStarted) ?? NaN;
  const ended = parseInstant(attributes.dateEnded) ?? NaN;
  return ended < started ? [DATES_OUT_OF_ORDER] : [];
}

/**
 * Each range and domain a write sends that a licence may not hold (site-licence.ts), at its
 * element; and, when the write names a licence other than site, each term it sends a value for.
 */
function siteLicenceProblems(attributes: Record<string, unknown>): Problem[] {
  const problems: Problem[] = [];
  for (const name of ['ipRanges', 'emailDomains'] as const) {
    const values = attributes[name];
    if (Array.isArray(values)) problems.push(...siteTermProblems(name, values));
  }
  // An update that sends no licence keeps the one stored, which changedSubscription holds them to.
  const license = attributes.license;
  if (license !== undefined && license !== 'site') {
    for (const term of SITE_TERMS) {
      const value = attributes[term];
      const empty = value === undefined || value === null || (Array.isArray(value) && value.length === 0);
      if (!empty)
        problems.push({ pointer: `/data/attributes/${term}`, detail: 'is for a site licence only (license site)' });
    }
  }
  return problems;
}

/** Refuses delivery days of its own that its product is not delivered on. */
export function requireProductDeliveryDays(deliveryDays: number | null, productDays: number): void {
  // Stryker disable next-line ConditionalExpression: null is 0 to the bitwise subset test, no day, a subset of any
  if (deliveryDays !== null && !isSubsetOf(deliveryDays, productDays)) {
    throw failures.invalid([
      {
        pointer: '/data/attributes/deliveryDays',
        detail: `must be some of its product's delivery days: ${weekdaysOf(productDays).join(', ')}`,
      },
    ]);
  }
}

function instant(text: string): number {
  // The schema has already checked the format; this cannot be undefined here.
  return parseInstant(text) as number;
}

function checked(values: SubscriptionValues): SubscriptionValues {
  if (values.dateEnded !== null && values.dateEnded < values.dateStarted) {
    throw failures.invalid([{ pointer: '/data/attributes/dateEnded', detail: 'must not be before dateStarted' }]);
  }
  return values;
}

const ProductIdentifier = Type.Object(
  { type: Type.Literal(PRODUCTS), id: CatalogueId },
  { additionalProperties: false },
);

/** The optional link to a subscription product; `data: null` removes it on update. */
export const SubscriptionRelationships = Type.Object(
  {
    product: Type.Optional(Type.Object({ data: Nullable(ProductIdentifier) }, { additionalProperties: false })),
  },
  { additionalProperties: false },
);

export const SubscriptionRelationshipsRead = Type.Object({
  product: Type.Object({ data: Nullable(Type.Object({ type: Type.Literal(PRODUCTS), id: Type.String() })) }),
});

export function toSubscriptionRelationships(s: StoredSubscription): Static<typeof SubscriptionRelationshipsRead> {
  return { product: { data: s.productId === null ? null : { type: PRODUCTS, id: s.productId } } };
}

/** Subscriptions by their user's id, each user's in the order given. */
export function groupByUser(subscriptions: readonly StoredSubscription[]): Map<string, StoredSubscription[]> {
  const byUser = new Map<string, StoredSubscription[]>();
  for (const s of subscriptions) {
    const list = byUser.get(s.userId);
    if (list) list.push(s);
    else byUser.set(s.userId, [s]);
  }
  return byUser;
}
