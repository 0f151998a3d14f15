/**
 * What any document a client sends must be before its schema is even consulted: no array of more
 * than 100 items and no object of more than 100 members anywhere (every list the API takes is
 * shorter, and a user is some twenty attributes), and no text a store cannot keep as sent (NUL,
 * which PostgreSQL refuses and SQLite cuts text at, or an unpaired surrogate, which is not text).
 *
 * The bounds are what keep validation bounded: a schema checked with every problem reported
 * would otherwise report each of half a million bad items one by one. The walk itself is one pass
 * without recursion (bodies nest deeply) that keeps a small record per string and container and
 * builds a pointer only for a problem it reports, stopping at MAX_PROBLEMS.
 */
import type { Problem } from './failures.js';
import { MAX_PROBLEMS } from './validation.js';

export const MAX_ITEMS = 100;
export const MAX_MEMBERS = 100;

/** Where a value sits: its parent's place and its own name or index in it (null at the root). */
interface Place {
  parent: Place | null;
  name: string;
}

/** The problems of a document's shape, at most MAX_PROBLEMS; none when it is within bounds. */
export function shapeProblems(document: unknown): Problem[] {
  const problems: Problem[] = [];
  const values: unknown[] = [document];
  const places: (Place | null)[] = [null];
  while (values.length > 0 && problems.length < MAX_PROBLEMS) {
    const value = values.pop();
    const place = places.pop() as Place | null;
    if (typeof value === 'string') {
      if (!isStorable(value)) problems.push(problemAt(place, 'must not contain NUL characters or unpaired surrogates'));
    } else if (Array.isArray(value)) {
      if (value.length > MAX_ITEMS) {
        problems.push(problemAt(place, `has too many items (maximum is ${MAX_ITEMS})`));
        continue;
      }
      // Stryker disable next-line EqualityOperator: the item past the end is undefined, which push does not queue
      for (let i = 0; i < value.length; i += 1) push(value[i], place, String(i));
    } else if (typeof value === 'object' && value !== null) {
      const names = Object.keys(value);
      if (names.length > MAX_MEMBERS) {
        problems.push(problemAt(place, `has too many members (maximum is ${MAX_MEMBERS})`));
        continue;
      }
      for (const name of names) {
        if (!isStorable(name)) {
          problems.push(
            problemAt({ parent: place, name }, 'member names must not contain NUL characters or unpaired surrogates'),
          );
        }
        push((value as Record<string, unknown>)[name], place, name);
      }
    }
  }
  return problems;

  function push(child: unknown, parent: Place | null, name: string): void {
    // Scalars other than strings have nothing to check: they are not even queued. (Queued, the
    // walk would pass over them: the mutants that queue them change only the work done.)
    // Stryker disable next-line ConditionalExpression,LogicalOperator: see above
    if (typeof child !== 'object' && typeof child !== 'string') return;
    // Stryker disable next-line ConditionalExpression: see above
    if (child === null) return;
    values.push(child);
    places.push({ parent, name });
  }
}

function isStorable(text: string): boolean {
  return !text.includes('\u0000') && text.isWellFormed();
}

function problemAt(place: Place | null, detail: string): Problem {
  const names: string[] = [];
  for (let at = place; at !== null; at = at.parent) names.push(at.name.replace(/~/g, '~0').replace(/\//g, '~1'));
  return {
    pointer: names
      .reverse()
      .map((name) => `/${name}`)
      .join(''),
    detail,
  };
}
