/**
 * Paging, every decision of it in one place. Cursor paging, as the feeds use it: `page[size]`
 * (1–100) and `page[after]` (the last id seen), a page fetched one item long to know whether
 * another follows, and a `links.next` that keeps every other parameter as sent. Numbered paging,
 * as the user list adds it: `page[number]` up to MAX_PAGE_OFFSET deep, its first and prev links,
 * and its refusal of a page by number past where the list may stop short.
 */
import { Type } from '@sinclair/typebox';
import { errors } from '../errors.js';
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
      // Stryker disable next-line OptionalChaining: a page[size] is at least 1, so a page read past is never empty
      ...(fetched.length > size ? { next: listLink(base, path, [...others, ['page[after]', page.at(-1)?.id]]) } : {}),
    },
  };
}

/** How a page by number is asked for: `page[number]`, or `page` as some clients send it. */
export interface NumberedPageQuery {
  page?: string;
  'page[number]'?: string;
  'page[after]'?: string;
}

/** How far a list's read went (store/ports/users.ts, `UserPage`): what a page's links depend on. */
export interface ListRead {
  /** How many items were read: one more than the page when another follows. */
  count: number;
  /** Where a read that stopped short before the list's end stopped: the list goes on after it. */
  readTo?: string;
  /** Whether the list's pages may stop short, so that a page reached by links.next need not be the nth of a full size. */
  mayStopShort?: boolean;
}

/** The address of page `number` of a list, past `after` when given, its other parameters as sent. */
export type PageUrl = (number: number, after?: string) => string;

/** Refuses a page and page[number] that disagree; answers the page asked for (1 when neither is sent). */
export function pageNumberOf(query: NumberedPageQuery): number {
  if (query.page !== undefined && query['page[number]'] !== undefined && query.page !== query['page[number]']) {
    throw errors.invalidQueryParameter('page', 'page and page[number] disagree; send one of them');
  }
  return Number(query['page[number]'] ?? query.page ?? 1);
}

/**
 * A list read a page by number or past a cursor: the offset the page starts at (refused past
 * MAX_PAGE_OFFSET, which an OFFSET would read), the refusal of a page by number past where the
 * list stopped short, and the page's links.
 */
export function numberedPaging(query: NumberedPageQuery, size: number) {
  const number = pageNumberOf(query);
  const parameter = query['page[number]'] === undefined ? 'page' : 'page[number]';
  const after = query['page[after]'];
  const offset = after === undefined ? (number - 1) * size : 0;
  if (offset >= MAX_PAGE_OFFSET) throw errors.pageTooDeep(parameter, MAX_PAGE_OFFSET);
  return {
    offset,
    /** A page by number past where a page stops short is not known: it would take reading every page before it. */
    refuseShort(read: ListRead): void {
      if (read.readTo !== undefined && offset > 0) throw errors.pageTooSparse(parameter);
    },
    /** The page's links, given its own address, how the list was read and the page's last id. */
    links(self: string, url: PageUrl, read: ListRead, lastId: string | undefined) {
      const nextAfter = read.count > size ? lastId : read.readTo;
      // Only a previous page that may be asked for by number. Of a list whose pages may stop
      // short, page n reached by links.next need not be the nth of a full size; page n asked for
      // by number and answered read every page before it whole, so the one before is page n - 1.
      const prev = number > 1 && (number - 2) * size < MAX_PAGE_OFFSET && !(read.mayStopShort && after !== undefined);
      return {
        self,
        first: url(1),
        ...(prev ? { prev: url(number - 1) } : {}),
        ...(nextAfter === undefined ? {} : { next: url(number + 1, nextAfter) }),
      };
    },
  };
}
