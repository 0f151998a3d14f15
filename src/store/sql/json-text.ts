/**
 * Resources the database writes as JSON text (users, in user-json.ts): how each dialect writes a
 * column's value as JSON, a resource put together from stretches of text the database writes
 * and the few values written in JavaScript instead, where the database cannot give the general
 * path's bytes, and which of those stretches can be kept on the resource's row, written once when
 * the row is.
 */
import { join, raw, Sql, sql, type Dialect } from './builder.js';

/** How a dialect writes a value as JSON text (never SQL NULL: a NULL would void the whole concatenation). */
export interface JsonText {
  /** A text column as a JSON string, or `null`. */
  text(column: string): string;
  /** Pieces of text (two or more) put together as a row is read. */
  concat(pieces: readonly Sql[]): Sql;
}

export const JSON_TEXT: Record<Dialect, JsonText> = {
  // json_quote and to_json escape as JSON.stringify does (quotes, backslashes, control characters).
  // SQLite's `||` makes a new text of all joined so far at each piece, concat() writes the whole text
  // once: a delivery's 29 pieces cost a page of the print run about a tenth more with `||`.
  // PostgreSQL measured the same either way, and keeps the operator.
  sqlite: { text: (column) => `json_quote(${column})`, concat: (pieces) => sql`concat(${join(pieces, ', ')})` },
  postgres: {
    text: (column) => `coalesce(to_json(${column})::text, 'null')`,
    concat: (pieces) => join(pieces, ' || '),
  },
};

/** JSON text as an SQL string literal. */
export function literal(json: string): Sql {
  return raw(`'${json.replaceAll("'", "''")}'`);
}

/** A value the database leaves to JavaScript: the column it reads, and how its value is written. */
export interface WrittenHere {
  column: string;
  write(value: unknown): string;
}

/** SQL that writes a value from beyond the resource's row (another table's), so never kept on it. */
export class Beyond {
  constructor(readonly sql: Sql) {}
}

/**
 * A piece of a resource's text: JSON text as it is, SQL that writes some from the row, SQL that
 * writes some from beyond it, or a value written here.
 */
export type Piece = string | Sql | Beyond | WrittenHere;

/**
 * A resource as its text: the columns to select (SQL writing a stretch of it, then a column for a
 * value written here, and so on), and how a row's values from `start` on are put together.
 */
export interface ResourceText {
  columns: Sql;
  assemble(values: readonly unknown[], start: number): string;
}

export function resourceText(pieces: readonly Piece[], dialect: JsonText): ResourceText {
  const stretches: Sql[][] = [[]];
  const here: WrittenHere[] = [];
  let json = '';
  const flush = () => {
    if (json !== '') stretches.at(-1)!.push(literal(json));
    json = '';
  };
  for (const piece of pieces) {
    if (typeof piece === 'string') json += piece;
    else if (piece instanceof Sql || piece instanceof Beyond) {
      flush();
      stretches.at(-1)!.push(piece instanceof Beyond ? piece.sql : piece);
    } else {
      flush();
      here.push(piece);
      stretches.push([]);
    }
  }
  flush();
  const columns = stretches.map((stretch, i) => {
    const text = stretch.length === 0 ? literal('') : stretch.length === 1 ? stretch[0]! : dialect.concat(stretch);
    return i < here.length ? sql`${text}, ${raw(here[i]!.column)}` : text;
  });
  return {
    columns: join(columns, ', '),
    assemble(values, start) {
      let text = values[start] as string;
      for (let i = 0; i < here.length; i += 1) {
        text += here[i]!.write(values[start + 2 * i + 1]) + (values[start + 2 * i + 2] as string);
      }
      return text;
    },
  };
}

/** A stretch of a resource's text kept on its row: the column that keeps it, and the SQL that writes it from the row. */
export interface KeptStretch {
  column: string;
  sql: Sql;
}

/** A resource whose text is partly kept on its row. */
export interface KeptText {
  /** What is kept, in `${prefix}_0`, `${prefix}_1`, … in the order of the text. */
  kept: readonly KeptStretch[];
  /** The resource read from its row: the kept columns, with what they cannot keep around them. */
  read: ResourceText;
}

/**
 * The resource of `pieces` with each stretch the row alone writes kept in a column of its own:
 * the stretches end at a value from beyond the row or written here, which are read as before. A
 * kept stretch is written by triggers on the row, which take no parameters, so its SQL has none.
 * It is joined by `||` whatever the dialect: the triggers are made from it, and a trigger that
 * differs from a database's has every row of the table written again when the database opens.
 */
export function keptText(pieces: readonly Piece[], prefix: string, dialect: JsonText): KeptText {
  const kept: KeptStretch[] = [];
  const read: Piece[] = [];
  let stretch: (string | Sql)[] = [];
  const flush = () => {
    if (stretch.some((piece) => piece instanceof Sql)) {
      const parts = stretch.map((piece) => (typeof piece === 'string' ? literal(piece) : piece));
      const keeps = { column: `${prefix}_${kept.length}`, sql: join(parts, ' || ') };
      if (keeps.sql.values.length > 0) throw new Error(`the kept stretch ${keeps.column} takes parameters`);
      kept.push(keeps);
      read.push(raw(keeps.column));
    } else read.push(...stretch);
    stretch = [];
  };
  for (const piece of pieces) {
    if (typeof piece === 'string' || piece instanceof Sql) stretch.push(piece);
    else {
      flush();
      read.push(piece);
    }
  }
  flush();
  return { kept, read: resourceText(read, dialect) };
}
