/**
 * Instants as the interface writes them: ISO-8601 with a UTC offset. They are stored as whole
 * seconds since the epoch and always written back in UTC as `YYYY-MM-DDThh:mm:ss+00:00`.
 */

const ISO_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.\d{1,9})?(Z|[+-](\d{2}):(\d{2}))$/;

/** The first and last instants a four-digit year writes: 0000-01-01T00:00:00 and 9999-12-31T23:59:59 UTC. */
const FIRST_WRITABLE = utcDate(0, 0, 1).getTime() / 1000;
const LAST_WRITABLE = utcDate(10000, 0, 1).getTime() / 1000 - 1;

/**
 * Epoch seconds of an ISO-8601 timestamp with offset, or undefined when it is not one, or when in
 * UTC it falls outside the years 0000–9999 that it is written back in (an offset can carry
 * 9999-12-31T23:00:00-05:00 into 10000).
 */
export function parseInstant(text: string): number | undefined {
  const m = ISO_DATE_TIME.exec(text);
  if (!m) return undefined;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const offsetHours = m[8] === undefined ? 0 : Number(m[8]);
  const offsetMinutes = m[9] === undefined ? 0 : Number(m[9]);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  if (hour > 23 || minute > 59 || second > 59 || offsetHours > 23 || offsetMinutes > 59) return undefined;
  // Stryker disable next-line OptionalChaining: the pattern always captures the offset; `?.` is for the type checker
  const sign = m[7]?.startsWith('-') ? -1 : 1;
  const utcSeconds = utcDate(year, month - 1, day).setUTCHours(hour, minute, second) / 1000;
  const instant = utcSeconds - sign * (offsetHours * 3600 + offsetMinutes * 60);
  return instant < FIRST_WRITABLE || instant > LAST_WRITABLE ? undefined : instant;
}

/**
 * Epoch seconds of a calendar date `YYYY-MM-DD` (its first instant, in UTC) or of an ISO-8601
 * timestamp with offset (for a day that begins in another zone); undefined when it is neither.
 */
export function parseDateOrInstant(text: string): number | undefined {
  // Stryker disable next-line Regex: text before a date is no timestamp either way; parseInstant is anchored
  return parseInstant(/^\d{4}-\d{2}-\d{2}$/.test(text) ? `${text}T00:00:00+00:00` : text);
}

export function isIsoDateTime(text: string): boolean {
  return parseInstant(text) !== undefined;
}

/** Whether an instant is one the interface can write back: in the years 0000 to 9999 in UTC. */
export function isWritableInstant(epochSeconds: number): boolean {
  return epochSeconds >= FIRST_WRITABLE && epochSeconds <= LAST_WRITABLE;
}

export function formatInstant(epochSeconds: number): string {
  return new Date(epochSeconds * 1000).toISOString().slice(0, 19) + '+00:00';
}

/** An instant kept in epoch milliseconds, written the same way with its milliseconds. */
export function formatMilliseconds(epochMilliseconds: number): string {
  return new Date(epochMilliseconds).toISOString().slice(0, 23) + '+00:00';
}

export function nowInSeconds(): number {
  return Math.floor(Date.now() / 1000);
}

function daysInMonth(year: number, month: number): number {
  return utcDate(year, month, 0).getUTCDate();
}

/** A UTC midnight; unlike Date.UTC, it does not read years 0–99 as 1900–1999. */
function utcDate(year: number, monthIndex: number, day: number): Date {
  const date = new Date(0);
  date.setUTCFullYear(year, monthIndex, day);
  return date;
}
