/**
 * The columns a CSV export may have, and which it has unless told (`--columns`): every user
 * attribute, flat as CSV has them (`address.postalCode`), so that the export imports back; or, for
 * the print list (who receives the print edition), what a mail house needs and nothing more:
 * name, address, product and copies, never notes, email or telephone numbers.
 *
 * Three columns are not attributes: `name`, the reader's name as an envelope has it; `product`
 * and `copies`, the product of the reader's active subscriptions and how many of them they hold.
 * A row carries one product, so with either of them a reader holding two products is two rows.
 */
import { didYouMean } from '../domain/suggestion.js';
import { USER_GROUPS } from '../domain/user.js';
import { USER_CSV_COLUMNS } from './csv.js';

export const NAME_COLUMN = 'name';
export const PRODUCT_COLUMN = 'product';
export const COPIES_COLUMN = 'copies';

/** Every column an export can write, in the order of the full export. */
export const EXPORT_COLUMNS: readonly string[] = [...USER_CSV_COLUMNS, NAME_COLUMN, PRODUCT_COLUMN, COPIES_COLUMN];

/** Names that stand for several columns: a nested attribute's fields, in order. */
const COLUMN_GROUPS: Readonly<Record<string, readonly string[]>> = Object.fromEntries(
  Object.entries(USER_GROUPS).map(([group, keys]) => [group, keys.map((key) => `${group}.${key}`)]),
);

/** The print list's columns, unless told otherwise: what a mail house needs to send the edition. */
export const PRINT_LIST_COLUMNS: readonly string[] = [
  NAME_COLUMN,
  ...(COLUMN_GROUPS.address as readonly string[]),
  PRODUCT_COLUMN,
  COPIES_COLUMN,
];

/** The name as an envelope has it: the parts of it that are set, in the order they are said. */
export function envelopeName(attributes: Readonly<Record<string, unknown>>): string {
  return ['honorificPrefix', 'givenName', 'additionalName', 'familyName', 'honorificSuffix']
    .map((part) => attributes[part])
    .filter((part): part is string => typeof part === 'string' && part.trim() !== '')
    .join(' ');
}

/**
 * The columns `--columns` names, comma-separated and in the order given (a group such as
 * `address` stands for its fields), or the problem with the list: an unknown or repeated name.
 */
export function selectColumns(list: string): { columns: string[] } | { problem: string } {
  const columns: string[] = [];
  for (const name of list.split(',').map((part) => part.trim())) {
    if (name === '') return { problem: 'names an empty column: give names separated by commas, such as name,address' };
    const named = COLUMN_GROUPS[name] ?? (EXPORT_COLUMNS.includes(name) ? [name] : undefined);
    if (!named) {
      const known = [...Object.keys(COLUMN_GROUPS), ...EXPORT_COLUMNS];
      return { problem: `names no column "${name}"${didYouMean(name, known)}; the columns are ${known.join(', ')}` };
    }
    const repeated = named.find((column) => columns.includes(column));
    if (repeated) return { problem: `names the column ${repeated} twice` };
    columns.push(...named);
  }
  return { columns };
}

/** Whether rows are a reader and one of their products (with `product` or `copies`), rather than a reader. */
export function rowsArePerProduct(columns: readonly string[]): boolean {
  return columns.includes(PRODUCT_COLUMN) || columns.includes(COPIES_COLUMN);
}
