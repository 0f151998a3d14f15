/**
 * Holds ("vacation stops"): a subscription's deliveries stopped from one publication date to
 * another, both included. What a hold stops is counted in the subscription's delivery days
 * (`deliveriesMissed`), and made good as the reader chose: `extend` moves the term's end on by as
 * many delivery days (an open-ended term has nothing to move), `credit` and `donate` leave the
 * term and are reported. Each subscription may hold at most HOLD_ALLOWANCE_DAYS delivery days in
 * a calendar year, and its holds never overlap. A hold is withdrawn rather than deleted, so the
 * record of what was asked stays.
 */
import { Type, type Static } from '@sinclair/typebox';
import { deliveryDaysBetween, deliveryDaysByYear, extendedEnd, shiftByDays } from './delivery-days.js';
import { failures, type Problem } from './failures.js';
import {
  deliveryMaskOf,
  overlaps,
  requireOpen,
  requirePrint,
  spanStatus,
  type DateSpan,
  type PrintSettings,
  type PrintTerms,
} from './print.js';
import { formatDate, parseDate, PublicationDate } from './publication.js';
import { isRecord, StringEnum } from './schema.js';
import { withRules } from './validation.js';

export const HOLDS = 'holds';

export const COMPENSATIONS = ['extend', 'credit', 'donate'] as const;
export type Compensation = (typeof COMPENSATIONS)[number];

export const HOLD_STATUSES = ['scheduled', 'active', 'ended', 'withdrawn'] as const;
export type HoldStatus = (typeof HOLD_STATUSES)[number];

const own = {
  startDate: PublicationDate('The first publication date held; on or after the first date still open by its cut-off.'),
  endDate: PublicationDate('The last publication date held (included); not before startDate.'),
  compensation: Type.Optional(
    StringEnum(COMPENSATIONS, {
      description:
        'extend (the default): the term ends later by the delivery days held; credit, donate: the term stays, and the hold is reported so.',
    }),
  ),
};

export const HoldCreateAttributes = withRules(Type.Object(own, { additionalProperties: false }), spanRuleProblems);
export const HoldUpdateAttributes = withRules(
  Type.Partial(Type.Object(own), { additionalProperties: false }),
  spanRuleProblems,
);

export const HoldAttributes = Type.Object({
  startDate: Type.String({ format: 'date' }),
  endDate: Type.String({ format: 'date' }),
  compensation: StringEnum(COMPENSATIONS),
  deliveriesMissed: Type.Integer({ description: 'Read-only: the delivery days of the subscription it holds.' }),
  status: StringEnum(HOLD_STATUSES, {
    description: 'Read-only: scheduled before startDate, active to endDate, ended after it; withdrawn once deleted.',
  }),
});

export type HoldCreate = Static<typeof HoldCreateAttributes>;
export type HoldUpdate = Static<typeof HoldUpdateAttributes>;

/** What a store keeps of a hold, apart from its ids. */
export interface HoldValues extends DateSpan {
  compensation: Compensation;
  deliveriesMissed: number;
  /** How many calendar days `extend` moved the term's end, so that undoing it restores the end exactly. */
  extendedDays: number;
}

export interface StoredHold extends HoldValues {
  id: string;
  userId: string;
  subscriptionId: string;
  withdrawn: boolean;
  version: number;
}

/** A hold's place in time on the publication date `today`. */
export function holdStatus(hold: Pick<StoredHold, 'startDate' | 'endDate' | 'withdrawn'>, today: number): HoldStatus {
  return hold.withdrawn ? 'withdrawn' : spanStatus(hold, today);
}

export function toHoldAttributes(hold: StoredHold, today: number): Static<typeof HoldAttributes> {
  return {
    startDate: formatDate(hold.startDate),
    endDate: formatDate(hold.endDate),
    compensation: hold.compensation,
    deliveriesMissed: hold.deliveriesMissed,
    status: holdStatus(hold, today),
  };
}

/** The order of the two dates a write sends. */
export function spanRuleProblems(attributes: unknown): Problem[] {
  if (!isRecord(attributes) || typeof attributes.startDate !== 'string' || typeof attributes.endDate !== 'string')
    return [];
  const start = parseDate(attributes.startDate);
  const end = parseDate(attributes.endDate);
  // Stryker disable next-line ConditionalExpression,LogicalOperator: a comparison with undefined is false; the checks narrow the type
  return start !== undefined && end !== undefined && end < start
    ? [{ pointer: '/data/attributes/endDate', detail: 'must not be before startDate' }]
    : [];
}

/** What a hold is made or changed against: its subscription, and the subscription's other holds not withdrawn. */
export interface HoldContext {
  terms: PrintTerms;
  others: readonly StoredHold[];
}

/** A hold's values as they are to be stored, and the term's end that goes with them. */
export interface HoldPlan {
  values: HoldValues;
  dateEnded: number | null;
}

/**
 * Refuses a hold whose held delivery days would take its subscription past the allowance in any
 * calendar year it touches (counted with the subscription's delivery days as they are now).
 */
export function requireAllowance(others: readonly DateSpan[], next: DateSpan, mask: number, allowance: number): void {
  const mine = deliveryDaysByYear(next.startDate, next.endDate, mask);
  for (const [year, count] of mine) {
    let held = count;
    for (const other of others) held += deliveryDaysByYear(other.startDate, other.endDate, mask).get(year) ?? 0;
    if (held > allowance) throw failures.holdAllowanceExceeded(year, held, allowance);
  }
}

/** The term's end with a hold's extension undone. */
export function endWithout(hold: Pick<HoldValues, 'extendedDays'> | undefined, dateEnded: number | null, zone: string) {
  return dateEnded === null || hold === undefined ? dateEnded : shiftByDays(dateEnded, -hold.extendedDays, zone);
}

/**
 * A hold made, or one changed (`current`) by the attributes sent, on `firstOpen`, the first date
 * still open: checked against the cut-off, the subscription's print, its other holds and the
 * allowance; its missed deliveries counted and the term moved for them.
 */
export function plannedHold(
  current: StoredHold | undefined,
  sent: HoldUpdate,
  context: HoldContext,
  settings: PrintSettings,
  firstOpen: number,
): HoldPlan {
  if (current?.withdrawn) throw failures.holdWithdrawn();
  const span: DateSpan = {
    startDate: sent.startDate === undefined ? (current?.startDate as number) : (parseDate(sent.startDate) as number),
    endDate: sent.endDate === undefined ? (current?.endDate as number) : (parseDate(sent.endDate) as number),
  };
  if (span.endDate < span.startDate) {
    throw failures.invalid([{ pointer: '/data/attributes/endDate', detail: 'must not be before startDate' }]);
  }
  const compensation = sent.compensation ?? current?.compensation ?? 'extend';
  requireOpen('hold', current, span, firstOpen);
  if (current !== undefined && compensation !== current.compensation && current.startDate < firstOpen) {
    throw failures.alreadyStarted('hold');
  }
  requirePrint(context.terms);
  const clash = context.others.find((other) => other.id !== current?.id && overlaps(other, span));
  if (clash) throw failures.holdOverlap(clash.id);
  const mask = deliveryMaskOf(context.terms);
  const others = context.others.filter((other) => other.id !== current?.id);
  requireAllowance(others, span, mask, settings.holdAllowanceDays);
  const deliveriesMissed = deliveryDaysBetween(span.startDate, span.endDate, mask);
  const { zone } = settings.calendar;
  const base = endWithout(current, context.terms.dateEnded, zone);
  const moved =
    compensation === 'extend' && base !== null
      ? extendedEnd(base, deliveriesMissed, mask, zone, '/data/attributes/compensation')
      : { dateEnded: base, days: 0 };
  return { values: { ...span, compensation, deliveriesMissed, extendedDays: moved.days }, dateEnded: moved.dateEnded };
}

/** A hold withdrawn before it starts: the term's end as it would be without it. */
export function withdrawnHold(hold: StoredHold, dateEnded: number | null, settings: PrintSettings, firstOpen: number) {
  requireOpen('hold', hold, undefined, firstOpen);
  return endWithout(hold, dateEnded, settings.calendar.zone);
}
