/**
 * Cursor paging, as the feeds use it: `page[size]` (1–100) and `page[after]` (the last id seen),
 * a page fetched one item long to know whether another follows, and a `links.next` that keeps
 * every other parameter as sent.
 */
import { Type } from '@sinclair/typebox';
import { Link } from './documents.js';
import { listLink } from './links.js';

export const MAX_PAGE_SIZE = 100;
/**
 * How deep a page by number may start: a page by number is an OFFSET, which reads every item it
 * skips. Deeper pages are reached through links.next (page[after]), an index seek at any depth.
 */
export const MAX_PAGE_OFFSET = 10_000;

export const PageSize = Type.Optional(
  Type.String({
    pattern: '^(100|[1-9][0-9]?)$',
    errorMessage: { pattern: 'must be a whole number from 1 to 100' },
    default: String(MAX_PAGE_SIZE),
  }),
);

export function PageAfter(what: string) {
  return Type.Optional(
    Type.String({ pattern: '^[0-9]{1,15}$', errorMessage: { pattern: `must be the id of ${what}` } }),
  );
}

export const CursorLinks = Type.Object({ self: Link, next: Type.Optional(Link) });

export function pageSizeOf(query: { 'page[size]'?: string }): number {
  return Number(query['page[size]'] ?? MAX_PAGE_SIZE);
}

/** The page of `fetched` (asked for one more than `size`), and its links. */
export function cursorPage<T extends { id: string }>(
  fetched: T[],
  size: number,
  base: string,
  path: string,
  query: Record<string, string | undefined>,
) {
  const page = fetched.slice(0, size);
  const others = Object.entries(query).filter(([name]) => name !== 'page[after]');
  return {
    page,
    links: {
      self: listLink(base, path, Object.entries(query)),
      ...(fetched.length > size ? { next: listLink(base, path, [...others, ['page[after]', page.at(-1)?.id]]) } : {}),
    },
  };
}
