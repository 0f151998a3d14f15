/**
 * Print circulation: which subscriptions are delivered, on which dates, and what may still change.
 * A subscription is delivered when it gives print (its own resource, or else its product's), on
 * the delivery days of its product that it keeps (all of them unless it narrows them), on every
 * publication date its term touches. Holds, temporary addresses and complaints are records of
 * their own (hold.ts, temporary-address.ts, delivery-complaint.ts); these are the rules they share.
 */
import { EVERY_DAY, deliversOn } from './delivery-days.js';
import { failures } from './failures.js';
import { formatDate, startOfDate, DEFAULT_CALENDAR, type PublicationCalendar } from './publication.js';
import type { Resource } from './subscription.js';

/**
 * The settings of print circulation (PUBLICATION_TIME_ZONE, CHANGE_CUTOFF, HOLD_ALLOWANCE_DAYS,
 * REPEAT_COMPLAINT_DAYS, COMPLAINT_MAX_AGE_DAYS).
 */
export interface PrintSettings {
  calendar: PublicationCalendar;
  /** The most delivery days a subscription may hold in a calendar year. */
  holdAllowanceDays: number;
  /** A complaint is a repeat when its subscription had another for a date this many days before. */
  repeatComplaintDays: number;
  /** How many days after a delivery a complaint of it is taken; 0 for as long as the term lasts. */
  complaintMaxAgeDays: number;
}

export const DEFAULT_HOLD_ALLOWANCE_DAYS = 35;
export const DEFAULT_REPEAT_COMPLAINT_DAYS = 14;
/** A publisher's policy, so none unless set: every delivery of the term may be complained of. */
export const DEFAULT_COMPLAINT_MAX_AGE_DAYS = 0;

export const DEFAULT_PRINT_SETTINGS: PrintSettings = {
  calendar: DEFAULT_CALENDAR,
  holdAllowanceDays: DEFAULT_HOLD_ALLOWANCE_DAYS,
  repeatComplaintDays: DEFAULT_REPEAT_COMPLAINT_DAYS,
  complaintMaxAgeDays: DEFAULT_COMPLAINT_MAX_AGE_DAYS,
};

/** What delivering a subscription depends on: its term, what it and its product give, and their days. */
export interface PrintTerms {
  id: string;
  dateStarted: number;
  dateEnded: number | null;
  resource: Resource | null;
  /** Its own delivery days (a mask), or null for all of its product's. */
  deliveryDays: number | null;
  /** What its product gives; null without a product, or one that names nothing. */
  productResource: Resource | null;
  /** Its product's delivery days (every day without a product). */
  productDays: number;
}

export function givesPrint(terms: Pick<PrintTerms, 'resource' | 'productResource'>): boolean {
  const resource = terms.resource ?? terms.productResource;
  return resource === 'print' || resource === 'print-online';
}

/** The days it is delivered on: its own, within its product's (which may have narrowed since). */
export function deliveryMaskOf(terms: Pick<PrintTerms, 'deliveryDays' | 'productDays'>): number {
  return (terms.deliveryDays ?? EVERY_DAY) & terms.productDays;
}

/** Whether its term touches the publication date `day`: it began before the date ended, and ended after it began. */
export function termCovers(terms: Pick<PrintTerms, 'dateStarted' | 'dateEnded'>, day: number, zone: string): boolean {
  return (
    terms.dateStarted < startOfDate(day + 1, zone) &&
    (terms.dateEnded === null || terms.dateEnded > startOfDate(day, zone))
  );
}

/** Whether it was (or will be) delivered on `day`, holds aside. */
export function deliveredOn(terms: PrintTerms, day: number, zone: string): boolean {
  return givesPrint(terms) && deliversOn(deliveryMaskOf(terms), day) && termCovers(terms, day, zone);
}

/** Refuses a hold or complaint on a subscription that gives no print. */
export function requirePrint(terms: PrintTerms): void {
  if (!givesPrint(terms)) throw failures.notPrint(terms.id);
}

/** A span of publication dates, both included. */
export interface DateSpan {
  startDate: number;
  endDate: number;
}

/** Where a span stands on `today`: not yet begun, in force (both ends included), or past. */
export function spanStatus(span: DateSpan, today: number): 'scheduled' | 'active' | 'ended' {
  if (today < span.startDate) return 'scheduled';
  return today <= span.endDate ? 'active' : 'ended';
}

export function overlaps(a: DateSpan, b: DateSpan): boolean {
  return a.startDate <= b.endDate && b.startDate <= a.endDate;
}

/**
 * What a date's cut-off allows of a dated record (a hold, a temporary address) that is made,
 * changed or removed, given the first date still open (`firstOpen`): a new one starts on an open
 * date; once it has started (its first date closed), its start stays, and its end moves only
 * among open dates; before, anything may change.
 */
export function requireOpen(
  what: string,
  current: DateSpan | undefined,
  next: DateSpan | undefined,
  firstOpen: number,
): void {
  const open = formatDate(firstOpen);
  if (current === undefined) {
    if (next !== undefined && next.startDate < firstOpen) throw failures.pastCutoff('/data/attributes/startDate', open);
    return;
  }
  const started = current.startDate < firstOpen;
  if (next === undefined || next.startDate !== current.startDate) {
    if (started) throw failures.alreadyStarted(what);
    if (next !== undefined && next.startDate < firstOpen) throw failures.pastCutoff('/data/attributes/startDate', open);
  }
  // Dates between the two ends change: each of them must still be open.
  if (
    next !== undefined &&
    next.endDate !== current.endDate &&
    Math.min(next.endDate, current.endDate) + 1 < firstOpen
  ) {
    throw failures.pastCutoff('/data/attributes/endDate', open);
  }
}
