/**
 * A reader's history: the events about them (GET /events?filter[user]=…), newest first, each
 * naming who made the change; older ones a page at a time through the feed's cursor.
 */
import { api, type paths } from './client';

export const HISTORY_PAGE_SIZE = 20;

type EventList = paths['/events']['get']['responses'][200]['content']['application/vnd.api+json'];
export type HistoryEvent = EventList['data'][number];

/** A page of a reader's events, and the cursor of the next (older) page when there is one. */
export interface HistoryPage {
  events: HistoryEvent[];
  after?: string;
}

/** The reader's events newest first, from just older than `after` (or the newest) on. */
export async function readerHistory(userId: string, after?: string): Promise<HistoryPage | undefined> {
  const { data } = await api.GET('/events', {
    params: {
      query: {
        'filter[user]': userId,
        sort: '-id',
        'page[size]': String(HISTORY_PAGE_SIZE),
        ...(after === undefined ? {} : { 'page[after]': after }),
      },
    },
  });
  if (!data) return undefined;
  // links.next is the feed's own address for the next page; only its cursor is needed here.
  const next = data.links.next ? (new URL(data.links.next).searchParams.get('page[after]') ?? undefined) : undefined;
  return { events: data.data, after: next };
}
