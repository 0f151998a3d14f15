/**
 * Resources the database writes as JSON text (users, in user-json.ts): how each dialect writes a
 * column's value as JSON, and a resource put together from stretches of text the database writes
 * and the few values written in JavaScript instead, where the database cannot give the general
 * path's bytes.
 */
import { join, raw, Sql, sql, type Dialect } from './builder.js';

/** How a dialect writes a value as JSON text (never SQL NULL: a NULL would void the whole concatenation). */
export interface JsonText {
  /** A text column as a JSON string, or `null`. */
  text(column: string): string;
}

export const JSON_TEXT: Record<Dialect, JsonText> = {
  // json_quote and to_json escape as JSON.stringify does (quotes, backslashes, control characters).
  sqlite: { text: (column) => `json_quote(${column})` },
  postgres: { text: (column) => `coalesce(to_json(${column})::text, 'null')` },
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

/** A piece of a resource's text: JSON text as it is, SQL that writes some, or a value written here. */
export type Piece = string | Sql | WrittenHere;

/**
 * A resource as its text: the columns to select (SQL writing a stretch of it, then a column for a
 * value written here, and so on), and how a row's values from `start` on are put together.
 */
export interface ResourceText {
  columns: Sql;
  assemble(values: readonly unknown[], start: number): string;
}

export function resourceText(pieces: readonly Piece[]): ResourceText {
  const stretches: Sql[][] = [[]];
  const here: WrittenHere[] = [];
  let json = '';
  const flush = () => {
    if (json !== '') stretches.at(-1)!.push(literal(json));
    json = '';
  };
  for (const piece of pieces) {
    if (typeof piece === 'string') json += piece;
    else if (piece instanceof Sql) {
      flush();
      stretches.at(-1)!.push(piece);
    } else {
      flush();
      here.push(piece);
      stretches.push([]);
    }
  }
  flush();
  const columns = stretches.map((stretch, i) => {
    const text = stretch.length === 0 ? literal('') : join(stretch, ' || ');
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
