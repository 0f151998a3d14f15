/**
 * Delivery days: the weekdays a print product is delivered on (weekend-only, Monday–Saturday, …),
 * narrowed perhaps by a subscription of its own. Kept as a bit mask (Monday the lowest bit), so
 * that "is this date a delivery day" is one AND in SQL, and counting the delivery days of a span
 * costs the same for a week as for a century.
 *
 * A term moves by delivery days (a hold's `extend`, a complaint's): it ends as many delivery days
 * later, on the same wall-clock time in the publisher's zone, whatever DST did in between.
 */
import { Type } from '@sinclair/typebox';
import { instantOf, wallClock, yearOf, firstDayOfYear } from './publication.js';
import { isWritableInstant } from './dates.js';
import { failures } from './failures.js';
import { StringEnum } from './schema.js';

export const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

/** Every day of the week: what a product is delivered on unless it says otherwise. */
export const EVERY_DAY = 0b111_1111;

export const DeliveryDays = (description: string) =>
  Type.Array(StringEnum(WEEKDAYS), { minItems: 1, maxItems: 7, uniqueItems: true, description });

/** The weekday of a day number, Monday 0 to Sunday 6 (1970-01-01 was a Thursday). */
export function weekdayOf(day: number): number {
  return (((day + 3) % 7) + 7) % 7;
}

/** The bit of a date's weekday in a mask. */
export function weekdayBit(day: number): number {
  return 1 << weekdayOf(day);
}

export function maskOf(days: readonly Weekday[]): number {
  return days.reduce((mask, day) => mask | (1 << WEEKDAYS.indexOf(day)), 0);
}

/** The weekdays of a mask, Monday first. */
export function weekdaysOf(mask: number): Weekday[] {
  return WEEKDAYS.filter((_, i) => (mask & (1 << i)) !== 0);
}

export function deliversOn(mask: number, day: number): boolean {
  return (mask & weekdayBit(day)) !== 0;
}

/** Whether every day of `days` is one of `allowed`'s. */
export function isSubsetOf(days: number, allowed: number): boolean {
  return (days & ~allowed) === 0;
}

function bitCount(mask: number): number {
  let n = 0;
  for (let m = mask; m !== 0; m &= m - 1) n += 1;
  return n;
}

/** The delivery days from `first` to `last`, both included (none when `last` is before `first`). */
export function deliveryDaysBetween(first: number, last: number, mask: number): number {
  if (last < first) return 0;
  // Stryker disable next-line ArithmeticOperator: a shorter span counts fewer whole weeks, and the days after them one by one come to the same
  const span = last - first + 1;
  const weeks = Math.floor(span / 7);
  let count = weeks * bitCount(mask);
  for (let day = first + weeks * 7; day <= last; day += 1) if (deliversOn(mask, day)) count += 1;
  return count;
}

/** The delivery days from `first` to `last`, by the calendar year they fall in. */
export function deliveryDaysByYear(first: number, last: number, mask: number): Map<number, number> {
  const byYear = new Map<number, number>();
  for (let year = yearOf(first); year <= yearOf(last); year += 1) {
    const from = Math.max(first, firstDayOfYear(year));
    const to = Math.min(last, firstDayOfYear(year + 1) - 1);
    const count = deliveryDaysBetween(from, to, mask);
    if (count > 0) byYear.set(year, count);
  }
  return byYear;
}

/**
 * How many calendar days a term whose last date is `last` must run on to take in `count` more
 * delivery days: the fewest, so that it ends on a delivery day. Zero for none.
 */
export function daysToTakeIn(last: number, count: number, mask: number): number {
  // Stryker disable next-line ConditionalExpression,EqualityOperator: for no count or less the loop below takes no week and no day either
  if (count <= 0) return 0;
  if (mask === 0) return 0;
  const perWeek = bitCount(mask);
  // Whole weeks first, so that a long extension is not counted day by day.
  const weeks = Math.max(0, Math.floor((count - 1) / perWeek));
  let taken = weeks * perWeek;
  let days = weeks * 7;
  while (taken < count) {
    days += 1;
    if (deliversOn(mask, last + days)) taken += 1;
  }
  return days;
}

/** An instant moved by whole calendar days in `zone`, keeping its wall-clock time there. */
export function shiftByDays(instant: number, days: number, zone: string): number {
  if (days === 0) return instant;
  const { day, second } = wallClock(instant, zone);
  return instantOf(day + days, second, zone);
}

/** The last date a term ending at `dateEnded` covers in `zone`: the date of its last second. */
export function lastDateOf(dateEnded: number, zone: string): number {
  return wallClock(dateEnded - 1, zone).day;
}

/**
 * A term's end moved later by `deliveries` delivery days: the new end, and by how many calendar
 * days it moved (kept, so that undoing it restores the end exactly).
 */
export function extendedEnd(
  dateEnded: number,
  deliveries: number,
  mask: number,
  zone: string,
  pointer: string,
): { dateEnded: number; days: number } {
  const days = daysToTakeIn(lastDateOf(dateEnded, zone), deliveries, mask);
  const moved = shiftByDays(dateEnded, days, zone);
  // A term ending at the end of 9999 cannot move later: its end could not be written back.
  if (!isWritableInstant(moved)) {
    throw failures.invalid([{ pointer, detail: "would move the subscription's dateEnded past the year 9999" }]);
  }
  return { dateEnded: moved, days };
}
