/**
 * Delivery complaints: a reader's word that a delivery of a subscription went wrong (missed,
 * damaged, wet, late, incomplete, to the wrong address), one per subscription and date, and what
 * is done about it. The date must have been a delivery of the subscription: a delivery day of
 * it, within its term, not held, and not in the future. `extend` moves the term's end on by one
 * delivery day; `redeliver` puts the subscription on the run of the first publication date still
 * open by its cut-off (the next run that can still change), once more and marked so, whether or
 * not it is delivered that date anyway; `none` records the complaint alone. A complaint is a
 * repeat when the subscription had another for a date in the REPEAT_COMPLAINT_DAYS before.
 * Complaints are a record of what happened: made, never changed or deleted (but with the reader).
 */
import { Type, type Static } from '@sinclair/typebox';
import { deliversOn, extendedEnd } from './delivery-days.js';
import { failures } from './failures.js';
import {
  deliveryMaskOf,
  requirePrint,
  termCovers,
  type PrintSettings,
  type PrintTerms,
  type DateSpan,
} from './print.js';
import { formatDate, parseDate, PublicationDate } from './publication.js';
import { Nullable, StringEnum } from './schema.js';

export const DELIVERY_COMPLAINTS = 'delivery-complaints';

export const COMPLAINT_REASONS = ['missed', 'damaged', 'wet', 'late', 'incomplete', 'wrong-address'] as const;
export type ComplaintReason = (typeof COMPLAINT_REASONS)[number];

export const REMEDIES = ['redeliver', 'extend', 'none'] as const;
export type Remedy = (typeof REMEDIES)[number];

export const DeliveryComplaintCreateAttributes = Type.Object(
  {
    deliveryDate: PublicationDate(
      'The publication date whose delivery went wrong: a delivery of this subscription (one of its delivery days, within its term, not held), today or before.',
    ),
    reason: StringEnum(COMPLAINT_REASONS),
    remedy: Type.Optional(
      StringEnum(REMEDIES, {
        description:
          'none (the default): recorded only; extend: the term ends one delivery day later; redeliver: the subscription is on the run of the first date still open by its cut-off once more, marked redelivery.',
      }),
    ),
  },
  { additionalProperties: false },
);

export const DeliveryComplaintAttributes = Type.Object({
  deliveryDate: Type.String({ format: 'date' }),
  reason: StringEnum(COMPLAINT_REASONS),
  remedy: StringEnum(REMEDIES),
  repeat: Type.Boolean({
    description:
      'Read-only: the subscription had another complaint for a date in the REPEAT_COMPLAINT_DAYS (14 unless set) before this one.',
  }),
  redeliveryDate: Nullable(
    Type.String({
      format: 'date',
      description: 'Read-only: the run that carries the redelivery; null unless redeliver.',
    }),
  ),
});

export type DeliveryComplaintCreate = Static<typeof DeliveryComplaintCreateAttributes>;

/** What a store keeps of a complaint, apart from its ids. */
export interface DeliveryComplaintValues {
  deliveryDate: number;
  reason: ComplaintReason;
  remedy: Remedy;
  repeat: boolean;
  redeliveryDate: number | null;
}

export interface StoredDeliveryComplaint extends DeliveryComplaintValues {
  id: string;
  userId: string;
  subscriptionId: string;
}

export function toDeliveryComplaintAttributes(
  complaint: StoredDeliveryComplaint,
): Static<typeof DeliveryComplaintAttributes> {
  return {
    deliveryDate: formatDate(complaint.deliveryDate),
    reason: complaint.reason,
    remedy: complaint.remedy,
    repeat: complaint.repeat,
    redeliveryDate: complaint.redeliveryDate === null ? null : formatDate(complaint.redeliveryDate),
  };
}

/** What a complaint is made against: its subscription, its holds not withdrawn, and its other complaints. */
export interface ComplaintContext {
  terms: PrintTerms;
  holds: readonly DateSpan[];
  others: readonly Pick<StoredDeliveryComplaint, 'id' | 'deliveryDate'>[];
}

/** A complaint's values as they are to be stored, and the term's end that goes with them. */
export interface ComplaintPlan {
  values: DeliveryComplaintValues;
  dateEnded: number | null;
}

/** Refuses a date that was not a delivery of the subscription, saying why. */
export function requireDelivery(
  terms: PrintTerms,
  holds: readonly DateSpan[],
  day: number,
  today: number,
  zone: string,
) {
  requirePrint(terms);
  if (day > today) throw failures.notADelivery('is in the future: only a delivery made can be complained of');
  if (!termCovers(terms, day, zone)) throw failures.notADelivery("is outside the subscription's term");
  if (!deliversOn(deliveryMaskOf(terms), day))
    throw failures.notADelivery('is not one of the subscription’s delivery days');
  if (holds.some((hold) => hold.startDate <= day && day <= hold.endDate)) {
    throw failures.notADelivery('was held: nothing was delivered');
  }
}

/** Whether another complaint of the subscription is for a date in the `days` before `day`. */
export function isRepeat(others: readonly Pick<StoredDeliveryComplaint, 'deliveryDate'>[], day: number, days: number) {
  return others.some((other) => other.deliveryDate < day && other.deliveryDate >= day - days);
}

/**
 * A complaint made on `today`, with `firstOpen` the first date still open: the date checked to
 * be a delivery of the subscription with no complaint yet, the repeat worked out, and the
 * remedy's effect (the term's end, or the run that redelivers).
 */
export function plannedComplaint(
  sent: DeliveryComplaintCreate,
  context: ComplaintContext,
  settings: PrintSettings,
  today: number,
  firstOpen: number,
): ComplaintPlan {
  const day = parseDate(sent.deliveryDate) as number;
  const { zone } = settings.calendar;
  requireDelivery(context.terms, context.holds, day, today, zone);
  if (settings.complaintMaxAgeDays > 0 && day < today - settings.complaintMaxAgeDays) {
    throw failures.invalid([
      {
        pointer: '/data/attributes/deliveryDate',
        detail: `is more than ${settings.complaintMaxAgeDays} days ago: a delivery is complained of within COMPLAINT_MAX_AGE_DAYS`,
      },
    ]);
  }
  const same = context.others.find((other) => other.deliveryDate === day);
  if (same) throw failures.complaintExists(same.id);
  const remedy = sent.remedy ?? 'none';
  const { dateEnded } = context.terms;
  const moved =
    remedy === 'extend' && dateEnded !== null
      ? extendedEnd(dateEnded, 1, deliveryMaskOf(context.terms), zone, '/data/attributes/remedy').dateEnded
      : dateEnded;
  return {
    values: {
      deliveryDate: day,
      reason: sent.reason,
      remedy,
      repeat: isRepeat(context.others, day, settings.repeatComplaintDays),
      redeliveryDate: remedy === 'redeliver' ? firstOpen : null,
    },
    dateEnded: moved,
  };
}
