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
const NOT_LETTER_OR_DIGIT = /[^\p{L}\p{N}]/gu;
const NAME_LIKE = /^[\p{L}'’-]+$/u;

/**
 * Letters NFKD does not take apart into a base letter and a mark, written as callers spell them
 * without it ("Ødegaard" is typed "odegaard", "Łęcki" "lecki"). Lower case: they are folded last.
 */
const FOLDED: Readonly<Record<string, string>> = {
  ø: 'o',
  ł: 'l',
  æ: 'ae',
  œ: 'oe',
  đ: 'd',
  ð: 'd',
  þ: 'th',
  ħ: 'h',
  ŧ: 't',
  ß: 'ss',
};
const UNFOLDED = new RegExp(`[${Object.keys(FOLDED).join('')}]`, 'gu');
const WHITE_SPACE = /\s+/gu;
const FINAL_SIGMA = /ς/gu;

/**
 * The key a name or email is kept and searched under; null for no text. Compatibility forms are
 * folded (full-width letters), accents dropped, and case folded through upper case, so that "ß"
 * meets "SS", dotless "ı" meets "I", and a final sigma meets the capital Σ it is written for; letters
 * that are no base letter with a mark are written as their plain letters (`FOLDED`: "ø" as "o").
 * A change here changes the keys kept: it takes a migration that computes them anew (as 24 does).
 */
export function searchKey(text: string | null | undefined): string | null {
  if (text == null) return null;
  const key = text
    .normalize('NFKD')
    .replace(COMBINING_MARKS, '')
    .toUpperCase()
    .toLowerCase()
    .replace(FINAL_SIGMA, 'σ')
    .replace(UNFOLDED, (c) => FOLDED[c] as string)
    .trim()
    .replace(WHITE_SPACE, ' ');
  return key === '' ? null : key;
}

/**
 * The key a name is also kept under when it is written with more than letters and digits: its key
 * without them ("O'Brien" as "obrien", "Jean-Luc" as "jeanluc"), so that a name typed without its
 * apostrophes, hyphens or spaces finds it. Null where it is the key itself, as for most names, so
 * that its index holds only the names it adds.
 */
export function compactKey(text: string | null | undefined): string | null {
  const key = searchKey(text);
  if (key === null) return null;
  const compact = key.replace(NOT_LETTER_OR_DIGIT, '');
  return compact === key || compact === '' ? null : compact;
}

/** A range of keys: those in [from, to) (that start with `from`), or, `whole`, those equal to it. */
export interface KeyRange {
  from: string;
  to: string;
  whole: boolean;
}

/** The keys a key matches: those it starts, or, shorter than SEARCH_PREFIX_MIN, itself whole. */
export function keyRange(key: string): KeyRange {
  return { from: key, to: successor(key), whole: Array.from(key).length < SEARCH_PREFIX_MIN };
}

/**
 * What a search matches: keys in [from, to) (those that start with the text), or, for a text shorter
 * than SEARCH_PREFIX_MIN, keys equal to `from` (`whole`); and ids or numbers equal to it.
 */
export interface SearchRange extends KeyRange {
  /** The text as typed, trimmed: a circulation number is matched whole, as it is kept. */
  exact: string;
  /** The text when it can be a user id. */
  id?: string;
  /** The text without what is not a letter or digit, matched against the names' compact keys: none if nothing is left. */
  compact?: KeyRange;
  /**
   * A text of two words or more, each of which must match the start of the given or the family
   * name (or of its compact key): "priya nunez" and "nunez priya" find Priya Núñez.
   */
  words?: KeyRange[];
  /** A text of letters only, long enough that a name one typo from it is worth offering (`similarity`). */
  similar?: string;
}

/** The range a typed text matches; undefined when it has nothing to search by (white space only). */
export function searchRange(text: string): SearchRange | undefined {
  const from = searchKey(text);
  if (from === null) return undefined;
  const exact = text.trim();
  const compact = from.replace(NOT_LETTER_OR_DIGIT, '');
  const words = from
    .split(' ')
    .map((word) => word.replace(NOT_LETTER_OR_DIGIT, ''))
    .filter((word) => word !== '');
  return {
    ...keyRange(from),
    exact,
    ...(/^[1-9][0-9]{0,14}$/.test(exact) ? { id: exact } : {}),
    ...(compact !== '' ? { compact: keyRange(compact) } : {}),
    ...(words.length > 1 ? { words: words.slice(0, SEARCH_WORDS_MAX).map(keyRange) } : {}),
    // One word of letters (an apostrophe or hyphen aside): not an email, nor a number.
    ...(NAME_LIKE.test(from) && Array.from(compact).length >= SIMILAR_NAME_MIN - 1 ? { similar: compact } : {}),
  };
}

/** The most words of a text matched against the names: more is no name a caller says. */
export const SEARCH_WORDS_MAX = 4;

/** The shortest name a typo is forgiven in: in shorter ones, one letter off is another name (Cruz, Cruy). */
export const SIMILAR_NAME_MIN = 5;

/**
 * How many names the stores read as candidates for a name one typo from the text (`similarity`):
 * a search stays bounded, however many readers share a name like it.
 */
export const SIMILAR_CANDIDATES = 200;

/**
 * How like a name (a compact key, or a key without white space) the typed text is: a rank in (0, 1]
 * when the name has SIMILAR_NAME_MIN letters or more and is at most one typo from the text (one
 * letter wrong, missing or added), and undefined otherwise. The rank is
 * the trigram similarity PostgreSQL's pg_trgm computes, so that both stores order alike.
 */
export function similarity(typed: string, name: string | null | undefined): number | undefined {
  if (name == null || typed === name) return undefined;
  const a = Array.from(typed);
  const b = Array.from(name);
  if (b.length < SIMILAR_NAME_MIN || !withinOneTypo(a, b)) return undefined;
  return trigramSimilarity(typed, name);
}

/**
 * At most one edit apart: a letter changed, added or left out. Two neighbours swapped are two: a
 * swap shares too few trigrams for either store's index to find it (0.2 in a name of five letters).
 */
function withinOneTypo(a: readonly string[], b: readonly string[]): boolean {
  // Stryker disable next-line ConditionalExpression: a shortcut; the last line refuses such lengths too
  if (Math.abs(a.length - b.length) > 1) return false;
  let i = 0;
  // Only equal words, never passed here, would run past both ends; and past the end of one word its
  // letter is undefined, matching the other's only past its end too.
  // Stryker disable next-line ConditionalExpression,EqualityOperator,LogicalOperator: see above
  while (i < a.length && i < b.length && a[i] === b[i]) i += 1;
  let j = 0;
  // An end overlapping the start only occurs one edit apart (tried to 9 letters); and once one word
  // is used up by its start and end the answer is yes, which walking on only lowers what is left to.
  // Stryker disable next-line ConditionalExpression,EqualityOperator,ArithmeticOperator,LogicalOperator: see above
  while (j < a.length - i && j < b.length - i && a[a.length - 1 - j] === b[b.length - 1 - j]) j += 1;
  // What is left between the common start and end: at most one letter of each.
  return a.length - i - j <= 1 && b.length - i - j <= 1;
}

/** The trigrams of a word as pg_trgm takes them: padded with two spaces before and one after. */
function trigrams(word: string): Set<string> {
  const points = Array.from(`  ${word} `);
  const set = new Set<string>();
  // Stryker disable next-line StringLiteral: any separator keeps trigrams as distinct as they are
  for (let i = 0; i + 3 <= points.length; i += 1) set.add(points.slice(i, i + 3).join(''));
  return set;
}

/** Shared trigrams over all the trigrams of either word (pg_trgm's `similarity`). */
export function trigramSimilarity(a: string, b: string): number {
  const x = trigrams(a);
  const y = trigrams(b);
  let shared = 0;
  for (const t of x) if (y.has(t)) shared += 1;
  const all = x.size + y.size - shared;
  // Never 0: padding gives every word, the empty one too, a trigram.
  return shared / all;
}

/**
 * The substrings of a text padded `^^text$$` that a name one typo from it (`similarity`), padded
 * alike, has all but one of: disjoint pieces of three characters or more, of which one edit breaks
 * at most one. SQLite reads its candidates from a trigram index by them.
 */
export function similarPieces(typed: string): string[] {
  const padded = Array.from(`^^${typed}$$`);
  const count = Math.min(4, Math.floor(padded.length / 3));
  const pieces: string[] = [];
  let start = 0;
  for (let k = 0; k < count; k += 1) {
    const end = Math.round(((k + 1) * padded.length) / count);
    pieces.push(padded.slice(start, end).join(''));
    start = end;
  }
  return pieces;
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
