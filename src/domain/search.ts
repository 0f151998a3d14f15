/**
 * Finding a reader from one search box: the key a name or an email is kept under, and the range of
 * keys a typed text matches. A key is the text lower-cased with its accents dropped ("Müller" is
 * kept as "muller", and "MULL" finds it), so the stores compare plain strings in an index, in code
 * point order, and never interpret the text (no LIKE, no pattern: `%`, `_` and `*` are characters).
 */

/** The longest text the search box takes: longer than any name or email a reader may have is no search. */
export const SEARCH_MAX_LENGTH = 254;

/** How many readers a search answers at a time unless page[size] says otherwise. */
export const SEARCH_PAGE_SIZE = 20;

/**
 * Texts shorter than this match names and emails whole, not as the start of one: "li" finds Li, not
 * every Lindqvist, so that a search is a seek in id order and never gathers a tenth of the readers.
 */
export const SEARCH_PREFIX_MIN = 3;

const COMBINING_MARKS = /\p{M}/gu;
const WHITE_SPACE = /\s+/gu;
const FINAL_SIGMA = /ς/gu;

/**
 * The key a name or email is kept and searched under; null for no text. Compatibility forms are
 * folded (full-width letters), accents dropped, and case folded through upper case, so that "ß"
 * meets "SS", dotless "ı" meets "I", and a final sigma meets the capital Σ it is written for.
 */
export function searchKey(text: string | null | undefined): string | null {
  if (text == null) return null;
  const key = text
    .normalize('NFKD')
    .replace(COMBINING_MARKS, '')
    .toUpperCase()
    .toLowerCase()
    .replace(FINAL_SIGMA, 'σ')
    .trim()
    .replace(WHITE_SPACE, ' ');
  return key === '' ? null : key;
}

/**
 * What a search matches: keys in [from, to) (those that start with the text), or, for a text shorter
 * than SEARCH_PREFIX_MIN, keys equal to `from` (`whole`); and ids or numbers equal to it.
 */
export interface SearchRange {
  from: string;
  to: string;
  whole: boolean;
  /** The text as typed, trimmed: a circulation number is matched whole, as it is kept. */
  exact: string;
  /** The text when it can be a user id. */
  id?: string;
}

/** The range a typed text matches; undefined when it has nothing to search by (white space only). */
export function searchRange(text: string): SearchRange | undefined {
  const from = searchKey(text);
  if (from === null) return undefined;
  const exact = text.trim();
  const whole = Array.from(from).length < SEARCH_PREFIX_MIN;
  return { from, to: successor(from), whole, exact, ...(/^[1-9][0-9]{0,14}$/.test(exact) ? { id: exact } : {}) };
}

/**
 * The first string after every string that starts with `prefix`, in code point order (which is
 * byte order of UTF-8, the order of SQLite's BINARY and PostgreSQL's "C" collation): the prefix with
 * its last code point raised by one, or, for the last code point there is, dropped and the one before raised.
 */
export function successor(prefix: string): string {
  const points = Array.from(prefix, (c) => c.codePointAt(0) as number);
  while (points.length > 0) {
    const last = points.pop() as number;
    if (last < 0x10ffff) {
      // Past the surrogates, which are no characters of their own.
      points.push(last + 1 === 0xd800 ? 0xe000 : last + 1);
      return String.fromCodePoint(...points);
    }
  }
  // Only U+10FFFF, which no code point follows: a string of more of them than any key is long.
  return '\u{10ffff}'.repeat(SEARCH_MAX_LENGTH + 1);
}
