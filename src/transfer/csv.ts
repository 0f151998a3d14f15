/**
 * Users as CSV rows: flat columns (`address.postalCode`), lists joined with `;`, and the one
 * subscription a row may carry in `subscription.*` columns. Export flattens, import unflattens.
 *
 * A CSV is written for spreadsheets unless told it is for machines: a cell a spreadsheet would
 * take for a formula (one that begins with `=`, `+`, `-`, `@`, a tab, a carriage return or a line
 * feed: a telephone number `+44…`, or a planted `=HYPERLINK(…)`) is exported with a leading
 * apostrophe, which makes it text, as OWASP advises against CSV injection, and so is every part of
 * a cell that a spreadsheet could split off as a cell of its own; import takes those apostrophes
 * off again, so an export imports back as it was. A program reading the file (a mail house's)
 * would keep the apostrophes as part of the value: for it, cells are written as they are.
 */
import { USER_FIELDS } from '../domain/user.js';

/** Lists in a CSV cell are joined with this. */
const LIST_SEPARATOR = ';';
const LIST_COLUMNS = new Set([
  'newsletters',
  'demographics.recommendations',
  'subscription.ipRanges',
  'subscription.emailDomains',
]);

/** The CSV columns of a user: flat attribute paths; the JSON `demographics` as its one list. */
export const USER_CSV_COLUMNS = [
  'id',
  'email',
  ...USER_FIELDS.map((f) => (f === 'demographics' ? 'demographics.recommendations' : f)),
  'newsletters',
  'lastSignInAt',
];

/**
 * Where a spreadsheet may start a cell: the start of ours, and after any character it may split
 * a line on (a comma, or a semicolon where the decimal mark is a comma; a tab) or break it at.
 * `Berlin;=1+1` is two cells, the second a formula, to a spreadsheet that splits on `;`.
 */
const CELL_START = /(?<=^|[,;\t\r\n])/.source;
/** A formula's first character (OWASP's list, and a line feed), after any apostrophes already before it. */
const FORMULA_AHEAD = /(?='*[=+\-@\t\r\n])/.source;
const BEFORE_FORMULA = new RegExp(CELL_START + FORMULA_AHEAD, 'g');
const APOSTROPHE_BEFORE_FORMULA = new RegExp(`${CELL_START}'${FORMULA_AHEAD}`, 'g');

/** A cell as exported: an apostrophe, which makes it text, wherever a spreadsheet would start a formula. */
export function neutralised(cell: string): string {
  return cell.replace(BEFORE_FORMULA, "'");
}

/** A cell as imported: the apostrophes export put before formulas are taken off. */
export function restored(cell: string): string {
  return cell.replace(APOSTROPHE_BEFORE_FORMULA, '');
}

/** Who reads an exported CSV: a spreadsheet (formulas neutralised) or a program (cells as they are). */
export const CSV_READERS = ['spreadsheets', 'machines'] as const;
export type CsvReader = (typeof CSV_READERS)[number];

/** A row as a spreadsheet must be given it: every text cell neutralised. */
export function forSpreadsheets(row: Record<string, unknown>): Record<string, unknown> {
  const safe: Record<string, unknown> = {};
  for (const [column, cell] of Object.entries(row)) safe[column] = typeof cell === 'string' ? neutralised(cell) : cell;
  return safe;
}

/** Attributes as CSV cells: nested objects as `group.key`, lists joined with `;`. */
export function flatten(attributes: Record<string, unknown>): Record<string, unknown> {
  const row: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(attributes)) {
    if (Array.isArray(value)) row[key] = value.join(LIST_SEPARATOR);
    else if (value !== null && typeof value === 'object') {
      for (const [sub, inner] of Object.entries(value)) {
        row[`${key}.${sub}`] = Array.isArray(inner) ? inner.join(LIST_SEPARATOR) : inner;
      }
    } else row[key] = value;
  }
  return row;
}

/** A CSV row as attributes: empty cells are left out, `a.b` columns nest, lists split. */
export function unflatten(row: Record<string, string>): Record<string, unknown> {
  const record: Record<string, unknown> = {};
  for (const [column, text] of Object.entries(row)) {
    if (text === '' || column === 'id') continue;
    const cell = restored(text);
    // CSV has only text: a boolean is read by import's leniency (`subscription.trial`).
    const value = LIST_COLUMNS.has(column) ? cell.split(LIST_SEPARATOR) : cell;
    const dot = column.indexOf('.');
    if (dot === -1) record[column] = value;
    else {
      const group = column.slice(0, dot);
      record[group] = { ...(record[group] as object | undefined), [column.slice(dot + 1)]: value };
    }
  }
  return record;
}
