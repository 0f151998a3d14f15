/**
 * What import reads more kindly than the API, where the meaning is beyond doubt: the ways a
 * spreadsheet writes a boolean, US and Canadian regions and the two countries spelled out, and
 * dates in a day/month order the file's owner names (`--date-format`), and, when the owner says so
 * (`--allow-blank-family-name`), a blank family name as the empty one. Each turns a value into
 * what the API takes, before the API's own schemas and rules check the record; anything else is
 * left as it is, for them to refuse with their own words.
 */
import { parseInstant } from '../domain/dates.js';
import { isRecord } from '../domain/schema.js';
import { COUNTRIES_BY_NAME, nameKey, REGIONS_BY_NAME } from './regions.js';

/** The orders of day and month `--date-format` may name; `YYYY-MM-DD` is read without one. */
export const DATE_FORMATS = ['MM/DD/YYYY', 'DD/MM/YYYY', 'DD.MM.YYYY'] as const;
export type DateFormat = (typeof DATE_FORMATS)[number];

export interface Leniency {
  /** How dates that are not ISO-8601 are written in the file. */
  dateFormat?: DateFormat;
  /**
   * Take a reader whose family name is blank or missing (a mononym, a company account), with
   * the empty family name; the API refuses one (`--allow-blank-family-name`).
   */
  allowBlankFamilyName?: boolean;
}

/** Whether a family name as a file gives it is blank: missing, empty or white space alone. */
function isBlankName(value: unknown): boolean {
  return value == null || (typeof value === 'string' && value.trim() === '');
}

const TRUE = new Set(['true', 'yes', '1']);
const FALSE = new Set(['false', 'no', '0']);

/** `true/false/yes/no/1/0` in any case (and the numbers 1 and 0) as a boolean; anything else as it is. */
export function readBoolean(value: unknown): unknown {
  if (value === 1 || value === 0) return value === 1;
  if (typeof value !== 'string') return value;
  const word = value.trim().toLowerCase();
  return TRUE.has(word) ? true : FALSE.has(word) ? false : value;
}

/** `USA`, `United States`, `Canada`, … as `US` or `CA`; any other country as it is. */
export function readCountry(value: unknown): unknown {
  return typeof value === 'string' ? (COUNTRIES_BY_NAME.get(nameKey(value)) ?? value) : value;
}

/** A US state or Canadian province spelled out (`California`, `Québec`) as its code, when the country is that one. */
export function readRegion(region: unknown, country: unknown): unknown {
  if (typeof region !== 'string' || typeof country !== 'string') return region;
  const names = REGIONS_BY_NAME[country.toUpperCase() as 'US' | 'CA'] as ReadonlyMap<string, string> | undefined;
  return names?.get(nameKey(region)) ?? region;
}

const TIME = String.raw`(?:[ T](\d{1,2}):(\d{2})(?::(\d{2}))?)?`;
const ISO_DATE = new RegExp(String.raw`^(\d{4})-(\d{2})-(\d{2})$`);
/** Each format's pattern, with where its day and month are among the numbers it captures. */
const PATTERNS: Record<DateFormat, { pattern: RegExp; day: number; month: number }> = {
  'MM/DD/YYYY': { pattern: new RegExp(String.raw`^(\d{1,2})/(\d{1,2})/(\d{4})${TIME}$`), day: 2, month: 1 },
  'DD/MM/YYYY': { pattern: new RegExp(String.raw`^(\d{1,2})/(\d{1,2})/(\d{4})${TIME}$`), day: 1, month: 2 },
  'DD.MM.YYYY': { pattern: new RegExp(String.raw`^(\d{1,2})\.(\d{1,2})\.(\d{4})${TIME}$`), day: 1, month: 2 },
};
/** What looks like a date whose order of day and month only the file's owner can say. */
const DAY_MONTH_DATE = /^\d{1,2}[./-]\d{1,2}[./-]\d{4}\b/;

/**
 * A date as the API takes it: `YYYY-MM-DD`, or a date in `format` (with an optional `hh:mm` or
 * `hh:mm:ss`), as that instant in UTC. Anything else, and a day that is not in the calendar
 * (`02/30/2025`), as it is.
 */
export function readDate(value: unknown, format: DateFormat | undefined): unknown {
  if (typeof value !== 'string') return value;
  const text = value.trim();
  const iso = ISO_DATE.exec(text);
  let parts: string[] | undefined;
  if (iso) parts = [iso[1], iso[2], iso[3]] as string[];
  else if (format) {
    const { pattern, day, month } = PATTERNS[format];
    const m = pattern.exec(text);
    if (m) parts = [m[3], m[month], m[day], m[4] ?? '0', m[5] ?? '0', m[6] ?? '0'] as string[];
  }
  if (!parts) return value;
  const [year, month, day, hour = '0', minute = '0', second = '0'] = parts;
  const two = (n: string) => n.padStart(2, '0');
  const instant = `${year}-${two(month as string)}-${two(day as string)}T${two(hour)}:${two(minute)}:${two(second)}+00:00`;
  return parseInstant(instant) === undefined ? value : instant;
}

/**
 * Why a date the API refused was not read, when it looks like a date whose order of day and
 * month was not given: the detail to report instead of the API's.
 */
export function undatedHint(value: unknown, format: DateFormat | undefined): string | undefined {
  if (format !== undefined || typeof value !== 'string' || !DAY_MONTH_DATE.test(value.trim())) return undefined;
  return `is a date with its day and month in an order only --date-format can say (${DATE_FORMATS.join(', ')})`;
}

/** A record (as a file holds it, subscriptions listed) with every kindness above applied. */
export function lenientRecord(record: Record<string, unknown>, leniency: Leniency): Record<string, unknown> {
  const read = { ...record };
  if (leniency.allowBlankFamilyName && isBlankName(read.familyName)) read.familyName = '';
  if (isRecord(read.address)) {
    const country = readCountry(read.address.addressCountry);
    const address: Record<string, unknown> = { ...read.address };
    if (country !== undefined) address.addressCountry = country;
    if (address.addressRegion !== undefined) address.addressRegion = readRegion(address.addressRegion, country);
    read.address = address;
  }
  if (Array.isArray(read.subscriptions)) {
    read.subscriptions = read.subscriptions.map((s: unknown) => (isRecord(s) ? lenientSubscription(s, leniency) : s));
  }
  return read;
}

function lenientSubscription(subscription: Record<string, unknown>, { dateFormat }: Leniency) {
  const read = { ...subscription };
  if (read.trial !== undefined) read.trial = readBoolean(read.trial);
  // A CSV cell is text: a site licence's seats as written there (an integer, as export writes it).
  if (typeof read.seats === 'string' && /^[1-9][0-9]{0,8}$/.test(read.seats)) read.seats = Number(read.seats);
  for (const date of ['dateStarted', 'dateEnded'] as const) {
    if (typeof read[date] === 'string') read[date] = readDate(read[date], dateFormat);
  }
  return read;
}
