/**
 * Publication dates and their cut-offs. A delivery happens on a publication date: a calendar date
 * (`YYYY-MM-DD`) in the publisher's time zone (PUBLICATION_TIME_ZONE), never the server's. A
 * change to a date closes at its cut-off (CHANGE_CUTOFF, `-1T19:00`: 19:00 the day before), a
 * wall-clock time in that zone, so that DST moves it in UTC and never on the clock on the wall.
 *
 * Dates are kept as day numbers (days since 1970-01-01), which compare, subtract and index as
 * integers in every store; instants as epoch seconds, as everywhere else.
 */
import { Type } from '@sinclair/typebox';

const DAY_SECONDS = 86_400;

/** A publication date, as an attribute: `YYYY-MM-DD`, a real calendar date. */
export const PublicationDate = (description: string) =>
  Type.String({
    format: 'date',
    errorMessage: { format: 'must be a calendar date as YYYY-MM-DD, such as 2026-03-02, in the years 1900 to 9999' },
    description,
  });

/** The first and last publication dates there are: four-digit years, well inside what an instant can be written as. */
export const FIRST_DATE = dayOfCivil(1900, 1, 1);
export const LAST_DATE = dayOfCivil(9999, 12, 31);

const DATE_TEXT = /^(\d{4})-(\d{2})-(\d{2})$/;

/** The day number of a `YYYY-MM-DD` date, or undefined when it is not one (29 February of a common year, …). */
export function parseDate(text: string): number | undefined {
  const m = DATE_TEXT.exec(text);
  if (!m) return undefined;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  const number = dayOfCivil(year, month, day);
  // Stryker disable next-line ConditionalExpression: four digits of year reach no later than LAST_DATE
  return number < FIRST_DATE || number > LAST_DATE ? undefined : number;
}

export function isPublicationDate(text: string): boolean {
  return parseDate(text) !== undefined;
}

/** `YYYY-MM-DD` of a day number. */
export function formatDate(day: number): string {
  const { year, month, day: d } = civilOfDay(day);
  // Stryker disable next-line StringLiteral: a publication date's year (1900 to 9999) has four digits already
  return `${String(year).padStart(4, '0')}-${pad(month)}-${pad(d)}`;
}

/** The calendar year a day number falls in. */
export function yearOf(day: number): number {
  return civilOfDay(day).year;
}

/** The day number of 1 January of `year`. */
export function firstDayOfYear(year: number): number {
  return dayOfCivil(year, 1, 1);
}

/** Days from 1970-01-01 to a proleptic Gregorian date (H. Hinnant's days_from_civil). */
function dayOfCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146_097 + doe - 719_468;
}

function civilOfDay(number: number): { year: number; month: number; day: number } {
  const z = number + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  return { year: yoe + era * 400 + (month <= 2 ? 1 : 0), month, day };
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

function pad(n: number): string {
  return String(n).padStart(2, '0');
}

/** Whether `zone` is an IANA time zone this runtime knows. */
export function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterOf(zone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(zone);
  // Stryker disable next-line ConditionalExpression: a cache; a new formatter formats alike
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(zone, formatter);
  }
  return formatter;
}

/** The wall clock in `zone` at an instant: its date as a day number, and the second of that day. */
export function wallClock(epochSeconds: number, zone: string): { day: number; second: number } {
  const parts: Record<string, number> = {};
  for (const part of formatterOf(zone).formatToParts(new Date(epochSeconds * 1000))) {
    // Stryker disable next-line ConditionalExpression,StringLiteral: the literals' field is never read
    if (part.type !== 'literal') parts[part.type] = Number(part.value);
  }
  const day = dayOfCivil(parts.year as number, parts.month as number, parts.day as number);
  return { day, second: (parts.hour as number) * 3600 + (parts.minute as number) * 60 + (parts.second as number) };
}

/** How far `zone`'s clocks are ahead of UTC at an instant, in seconds. */
function offsetAt(epochSeconds: number, zone: string): number {
  const { day, second } = wallClock(epochSeconds, zone);
  return day * DAY_SECONDS + second - epochSeconds;
}

/**
 * The instant a wall-clock time (`day`, `second` of it) is in `zone`. Where clocks go back and the
 * time comes twice, the first; where they go forward and it never comes, the time it would have
 * been by the clock before the change (so it falls as much later as the gap is long): how
 * RFC 5545 and Temporal's `compatible` read such times.
 */
export function instantOf(day: number, second: number, zone: string): number {
  const wall = day * DAY_SECONDS + second;
  const before = offsetAt(wall - DAY_SECONDS, zone);
  const after = offsetAt(wall + DAY_SECONDS, zone);
  const fitting = [...new Set([before, after])]
    .map((offset) => wall - offset)
    .filter((instant) => offsetAt(instant, zone) === wall - instant);
  return fitting.length > 0 ? Math.min(...fitting) : wall - before;
}

/** When a publication date begins in `zone` (its local midnight). */
export function startOfDate(day: number, zone: string): number {
  return instantOf(day, 0, zone);
}

/** Today's publication date in `zone` at `now`. */
export function dateAt(now: number, zone: string): number {
  return wallClock(now, zone).day;
}

/** When changes to a date close: `days` before it (0 or fewer) at `second` of that day. */
export interface ChangeCutoff {
  days: number;
  second: number;
}

const CUTOFF_TEXT = /^(-?\d{1,2})T([01]\d|2[0-3]):([0-5]\d)$/;

/** The most days before a date that its changes may close. */
export const MAX_CUTOFF_DAYS = 14;

/** A CHANGE_CUTOFF (`-1T19:00`: 19:00 the day before), or undefined when it is not one. */
export function parseCutoff(text: string): ChangeCutoff | undefined {
  const m = CUTOFF_TEXT.exec(text);
  if (!m) return undefined;
  const days = Number(m[1]);
  if (days > 0 || days < -MAX_CUTOFF_DAYS) return undefined;
  return { days: days === 0 ? 0 : days, second: Number(m[2]) * 3600 + Number(m[3]) * 60 };
}

/** The publisher's calendar: the zone its dates are in, and when a date's changes close. */
export interface PublicationCalendar {
  zone: string;
  cutoff: ChangeCutoff;
}

export const DEFAULT_CALENDAR: PublicationCalendar = { zone: 'UTC', cutoff: { days: -1, second: 19 * 3600 } };

/** The instant changes to `day` close. */
export function cutoffOf(day: number, calendar: PublicationCalendar): number {
  return instantOf(day + calendar.cutoff.days, calendar.cutoff.second, calendar.zone);
}

/** The first publication date whose changes are still open at `now`. */
export function firstOpenDate(now: number, calendar: PublicationCalendar): number {
  // Cut-offs only go later as dates do, and that of the day before today less the cut-off's days has passed.
  // Stryker disable next-line ArithmeticOperator: from an earlier start the loop below reaches the same first open date
  let day = dateAt(now, calendar.zone) - calendar.cutoff.days - 1;
  while (cutoffOf(day, calendar) <= now) day += 1;
  return day;
}
