/**
 * Site licences as the console reads and changes them: a licence is one of its owner's
 * subscriptions (`license: "site"`) with its networks, email domains and seats; its seats and their
 * holders; its usage by month. `findLicences` is how a domain typed into the search finds the
 * licences for it: GET /users with `filter[licenceDomain]`, each owner with their subscriptions.
 */
import { api, describe, type paths } from './client';
import type { Reader, Subscription } from './readers';

const LICENCE = '/users/{user_id}/subscriptions/{subscription_id}' as const;
const SEATS = '/users/{user_id}/subscriptions/{subscription_id}/seats' as const;

type SeatList = paths[typeof SEATS]['get']['responses'][200]['content']['application/vnd.api+json'];
export type Seat = SeatList['data'][number];
type UsageDocument =
  paths['/users/{user_id}/subscriptions/{subscription_id}/usage']['get']['responses'][200]['content']['application/vnd.api+json'];
export type UsageMonth = UsageDocument['data']['attributes']['months'][number];
type SubscriptionChange = NonNullable<
  NonNullable<
    paths[typeof LICENCE]['patch']['requestBody']
  >['content']['application/vnd.api+json']['data']['attributes']
>;
/** What the licence page changes of a licence's terms. */
export type LicenceTerms = Pick<SubscriptionChange, 'ipRanges' | 'emailDomains' | 'seats'>;

/** The seats a page of the list shows, and each "Show more" adds. */
export const SEATS_PAGE_SIZE = 20;

/** A licence with its owner, and the ETag a change of its terms sends back as If-Match. */
export interface LoadedLicence {
  owner: Reader;
  licence: Subscription;
  etag: string;
}

/** The licence, or undefined when the owner has no such subscription. */
export async function loadLicence(ownerId: string, id: string): Promise<LoadedLicence | undefined> {
  const [owner, licence] = await Promise.all([
    api.GET('/users/{user_id}', { params: { path: { user_id: ownerId } } }),
    api.GET(LICENCE, { params: { path: { user_id: ownerId, subscription_id: id } } }),
  ]);
  if (!owner.data || !licence.data) return undefined;
  return { owner: owner.data.data, licence: licence.data.data, etag: licence.response.headers.get('etag') ?? '*' };
}

export function saveTerms(loaded: LoadedLicence, terms: LicenceTerms) {
  const { id } = loaded.licence;
  return api.PATCH(LICENCE, {
    params: { path: { user_id: loaded.owner.id, subscription_id: id }, header: { 'if-match': loaded.etag } },
    body: { data: { type: 'subscriptions', id, attributes: terms } },
  });
}

/** A seat with the reader holding it (undefined when the reader could not be read). */
export interface HeldSeat {
  seat: Seat;
  holder: Reader | undefined;
}

/** A page of the licence's seats, each with its holder, and where the next page starts (if any). */
export async function listSeats(
  ownerId: string,
  id: string,
  after?: string,
): Promise<{ seats: HeldSeat[]; next: string | undefined } | { refused: string }> {
  const { data, error, response } = await api.GET(SEATS, {
    params: {
      path: { user_id: ownerId, subscription_id: id },
      query: { 'page[size]': String(SEATS_PAGE_SIZE), ...(after === undefined ? {} : { 'page[after]': after }) },
    },
  });
  if (!data) return { refused: describe(error, response.status) };
  const holders = await Promise.all(
    data.data.map((seat) =>
      api.GET('/users/{user_id}', { params: { path: { user_id: seat.relationships?.user.data.id ?? '' } } }),
    ),
  );
  const next = data.links.next ? (new URL(data.links.next).searchParams.get('page[after]') ?? undefined) : undefined;
  return { seats: data.data.map((seat, i) => ({ seat, holder: holders[i]?.data?.data })), next };
}

/**
 * Gives a seat to the reader named by `who`: an email (the reader with that address) or a reader
 * id. Undefined `holderId` in the answer means no reader has the email.
 */
export async function giveSeat(ownerId: string, id: string, who: string) {
  const text = who.trim();
  let holderId = text;
  if (text.includes('@')) {
    const found = await api.GET('/users', { params: { query: { 'filter[email]': text, 'page[size]': '1' } } });
    const reader = found.data?.data[0];
    if (!reader) return { unknownEmail: text };
    holderId = reader.id;
  }
  return api.POST(SEATS, {
    params: { path: { user_id: ownerId, subscription_id: id } },
    body: { data: { type: 'seats', relationships: { user: { data: { type: 'users', id: holderId } } } } },
  });
}

export function removeSeat(ownerId: string, id: string, seatId: string) {
  return api.DELETE(`${SEATS}/{seat_id}`, {
    params: { path: { user_id: ownerId, subscription_id: id, seat_id: seatId } },
  });
}

/** The licence's months of usage, oldest first; null when they could not be read. */
export async function licenceUsage(ownerId: string, id: string): Promise<UsageMonth[] | null> {
  const { data } = await api.GET('/users/{user_id}/subscriptions/{subscription_id}/usage', {
    params: { path: { user_id: ownerId, subscription_id: id } },
  });
  return data?.data.attributes.months ?? null;
}

/** A text the search takes for an email domain: `uni.example` or `@uni.example`, the domain without its @. */
export function domainOf(text: string): string | undefined {
  const match = /^@?([a-z0-9-]+(?:\.[a-z0-9-]+)+)$/i.exec(text.trim());
  return match?.[1];
}

/** A site licence the search found, with its owner. */
export interface FoundLicence {
  owner: Reader;
  licence: Subscription;
}

/** The site licences of the owners of licences for the domain, or the service's word on why it would not look. */
export async function findLicences(domain: string): Promise<{ licences: FoundLicence[] } | { refused: string }> {
  const { data, error, response } = await api.GET('/users', {
    params: { query: { 'filter[licenceDomain]': domain, include: 'subscriptions', 'page[size]': '20' } },
  });
  if (!data) return { refused: describe(error, response.status) };
  const included = data.included ?? [];
  const licences = data.data.flatMap((owner) => {
    const theirs = new Set(owner.relationships?.subscriptions?.data?.map((s) => s.id));
    return included
      .filter((s) => theirs.has(s.id) && s.attributes.license === 'site')
      .map((licence) => ({ owner, licence }));
  });
  return { licences };
}
