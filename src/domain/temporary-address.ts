/**
 * Temporary addresses: where a reader's print goes from one publication date to another (both
 * included) instead of their own address, for every subscription they have. A reader's temporary
 * addresses never overlap, so on any date at most one is in force, and the print run reads it.
 * They follow the cut-off as holds do: made and moved only among open dates; once started, the
 * start and the address stay (the runs already printed went there), and PATCH endDate ends one
 * early. One not yet started may be deleted; one that has started may not, so that what was
 * delivered where stays on record.
 */
import { Type, type Static } from '@sinclair/typebox';
import { failures, type Problem } from './failures.js';
import { overlaps, requireOpen, spanStatus, type DateSpan } from './print.js';
import { formatDate, parseDate, PublicationDate } from './publication.js';
import { isRecord, StringEnum } from './schema.js';
import { Address, addressProblems } from './user.js';
import { ADDRESS_FIELDS, DeliveryAddressSchema, type DeliveryAddress } from './delivery.js';
import { withRules } from './validation.js';

export const TEMPORARY_ADDRESSES = 'temporary-addresses';

/** The most publication dates one temporary address may cover (both ends included): a year, a leap year's too. */
export const MAX_TEMPORARY_ADDRESS_DAYS = 366;

/**
 * The most temporary addresses a reader may have that have not ended: more than a year's holidays,
 * few enough that the rules, which read them all at each change, stay cheap.
 */
export const MAX_COMING_TEMPORARY_ADDRESSES = 20;

export const TEMPORARY_ADDRESS_STATUSES = ['scheduled', 'active', 'ended'] as const;
export type TemporaryAddressStatus = (typeof TEMPORARY_ADDRESS_STATUSES)[number];

const own = {
  startDate: PublicationDate(
    'The first publication date delivered to this address; on or after the first date still open by its cut-off.',
  ),
  endDate: PublicationDate(
    `The last publication date delivered to this address (included); not before startDate, and at most ${MAX_TEMPORARY_ADDRESS_DAYS} dates in all.`,
  ),
  address: { ...Address, description: "Where print goes on these dates: a postal address, as a user's is written." },
};

export const TemporaryAddressCreateAttributes = withRules(
  Type.Object(own, { additionalProperties: false }),
  temporaryAddressRuleProblems,
);
export const TemporaryAddressUpdateAttributes = withRules(
  Type.Partial(Type.Object(own), { additionalProperties: false }),
  temporaryAddressRuleProblems,
);

export const TemporaryAddressAttributes = Type.Object({
  startDate: Type.String({ format: 'date' }),
  endDate: Type.String({ format: 'date' }),
  address: { ...DeliveryAddressSchema, description: 'Where print goes on these dates.' },
  status: StringEnum(TEMPORARY_ADDRESS_STATUSES, {
    description: 'Read-only: scheduled before startDate, active to endDate, ended after it.',
  }),
});

export type TemporaryAddressCreate = Static<typeof TemporaryAddressCreateAttributes>;
export type TemporaryAddressUpdate = Static<typeof TemporaryAddressUpdateAttributes>;

/** What a store keeps of a temporary address, apart from its ids. */
export interface TemporaryAddressValues extends DateSpan {
  address: DeliveryAddress;
}

export interface StoredTemporaryAddress extends TemporaryAddressValues {
  id: string;
  userId: string;
  version: number;
}

export function toTemporaryAddressAttributes(
  stored: StoredTemporaryAddress,
  today: number,
): Static<typeof TemporaryAddressAttributes> {
  return {
    startDate: formatDate(stored.startDate),
    endDate: formatDate(stored.endDate),
    address: { ...stored.address },
    status: spanStatus(stored, today),
  };
}

/** An address as it is stored: every field, null where none was sent. */
function fullAddress(sent: Record<string, unknown>): DeliveryAddress {
  return Object.fromEntries(
    ADDRESS_FIELDS.map((field) => [field, typeof sent[field] === 'string' ? sent[field] : null]),
  ) as DeliveryAddress;
}

function isBlank(address: Record<string, unknown>): boolean {
  return ADDRESS_FIELDS.every(
    (field) => typeof address[field] !== 'string' || (address[field] as string).trim() === '',
  );
}

/** The problems of a span whose dates are both known: their order, and its length. */
function spanProblems(start: number, end: number): Problem[] {
  if (end < start) return [{ pointer: '/data/attributes/endDate', detail: 'must not be before startDate' }];
  if (end - start + 1 > MAX_TEMPORARY_ADDRESS_DAYS) {
    return [
      {
        pointer: '/data/attributes/endDate',
        detail: `must be at most ${MAX_TEMPORARY_ADDRESS_DAYS} dates from startDate, both included`,
      },
    ];
  }
  return [];
}

/** What the schema cannot say: the address's region rule, that it names something, the span's order and length. */
export function temporaryAddressRuleProblems(attributes: unknown): Problem[] {
  if (!isRecord(attributes)) return [];
  const problems: Problem[] = [];
  const address = attributes.address;
  problems.push(...addressProblems(address, '/data/attributes/address'));
  if (isRecord(address) && isBlank(address)) {
    problems.push({ pointer: '/data/attributes/address', detail: "can't be blank" });
  }
  if (typeof attributes.startDate === 'string' && typeof attributes.endDate === 'string') {
    const start = parseDate(attributes.startDate);
    const end = parseDate(attributes.endDate);
    // Stryker disable next-line ConditionalExpression,LogicalOperator: with undefined, end < start is false and the length NaN
    if (start !== undefined && end !== undefined) problems.push(...spanProblems(start, end));
  }
  return problems;
}

/**
 * A temporary address made, or one changed (`current`) by the attributes sent, on `firstOpen`,
 * the first date still open: checked against the cut-off (and, once started, its address kept),
 * the span's order and length, and the reader's other temporary addresses.
 */
export function plannedTemporaryAddress(
  current: StoredTemporaryAddress | undefined,
  sent: TemporaryAddressUpdate,
  others: readonly StoredTemporaryAddress[],
  firstOpen: number,
): TemporaryAddressValues {
  const span: DateSpan = {
    startDate: sent.startDate === undefined ? (current?.startDate as number) : (parseDate(sent.startDate) as number),
    endDate: sent.endDate === undefined ? (current?.endDate as number) : (parseDate(sent.endDate) as number),
  };
  const problems = spanProblems(span.startDate, span.endDate);
  if (problems.length > 0) throw failures.invalid(problems);
  requireOpen('temporary address', current, span, firstOpen);
  const address = sent.address === undefined ? (current?.address as DeliveryAddress) : fullAddress(sent.address);
  if (
    current !== undefined &&
    current.startDate < firstOpen &&
    ADDRESS_FIELDS.some((field) => address[field] !== current.address[field])
  ) {
    throw failures.alreadyStarted('temporary address');
  }
  const clash = others.find((other) => other.id !== current?.id && overlaps(other, span));
  if (clash) throw failures.temporaryAddressOverlap(clash.id);
  if (
    current === undefined &&
    others.filter((other) => other.endDate >= firstOpen).length >= MAX_COMING_TEMPORARY_ADDRESSES
  ) {
    throw failures.invalid([
      {
        pointer: '/data',
        detail: `the reader has ${MAX_COMING_TEMPORARY_ADDRESSES} temporary addresses that have not ended, the most there may be`,
      },
    ]);
  }
  return { ...span, address };
}

/** Refuses to delete a temporary address that has started: PATCH endDate ends it early instead. */
export function requireDeletable(current: StoredTemporaryAddress, firstOpen: number): void {
  requireOpen('temporary address', current, undefined, firstOpen);
}
