/**
 * SQL written once for both dialects: a tagged template keeps every interpolated value as a
 * parameter, never as text, and renders the placeholders as `?` (SQLite) or `$1…` (PostgreSQL).
 * Fragments nest, so a filter is built from conditions and a query from its filter; `raw` marks
 * trusted text (an identifier, a keyword) that is spliced as it is.
 */
export type Dialect = 'sqlite' | 'postgres';

export class Sql {
  constructor(
    /** The text around the values: one more than there are values. */
    readonly texts: readonly string[],
    readonly values: readonly unknown[],
  ) {}

  /** The statement text with this dialect's placeholders, and its parameters in order. */
  render(dialect: Dialect): { text: string; values: unknown[] } {
    // Stryker disable next-line StringLiteral: texts has one more than values: every index read is in it
    let text = this.texts[0] ?? '';
    for (let i = 0; i < this.values.length; i += 1) {
      text += (dialect === 'sqlite' ? '?' : `$${i + 1}`) + this.texts[i + 1];
    }
    return { text, values: [...this.values] };
  }
}

export function sql(strings: TemplateStringsArray, ...values: unknown[]): Sql {
  // Stryker disable next-line StringLiteral: a template has one more string than values: every index read is in it
  const texts = [strings[0] ?? ''];
  const params: unknown[] = [];
  values.forEach((value, i) => {
    // Stryker disable next-line StringLiteral: a template has one more string than values
    const after = strings[i + 1] ?? '';
    if (value instanceof Sql) {
      // Splice the fragment: its first text joins ours, its values join ours in order.
      // Stryker disable next-line StringLiteral: a fragment's texts have one more than its values
      texts[texts.length - 1] += value.texts[0] ?? '';
      for (let j = 0; j < value.values.length; j += 1) {
        params.push(value.values[j]);
        // Stryker disable next-line StringLiteral: a fragment's texts have one more than its values
        texts.push(value.texts[j + 1] ?? '');
      }
      texts[texts.length - 1] += after;
    } else {
      params.push(value);
      texts.push(after);
    }
  });
  return new Sql(texts, params);
}

/** Trusted text spliced as it is: never a value a client sent. */
export function raw(text: string): Sql {
  return new Sql([text], []);
}

/** The fragments joined by `separator` (` AND `, `, `); `empty` when there are none. */
export function join(parts: readonly Sql[], separator: string, empty: Sql = raw('')): Sql {
  if (parts.length === 0) return empty;
  return parts.slice(1).reduce((joined, part) => sql`${joined}${raw(separator)}${part}`, parts[0] as Sql);
}

/** `WHERE` and the conditions joined by AND, or nothing when there are none. */
export function where(conditions: readonly Sql[]): Sql {
  return conditions.length === 0 ? raw('') : sql`WHERE ${join(conditions, ' AND ')}`;
}
