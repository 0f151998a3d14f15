/**
 * Print circulation as the console changes it: a print subscription's holds and delivery
 * complaints, and a reader's temporary addresses. The holds' and temporary addresses' lists carry
 * in `meta` where the cut-off stands now (the first date still open and when its cut-off falls),
 * which the forms show before anything is sent.
 */
import { api, type paths } from './client';
import { everyPage, pageQuery, type Listed } from './pages';

const HOLDS = '/users/{user_id}/subscriptions/{subscription_id}/holds' as const;
const HOLD = '/users/{user_id}/subscriptions/{subscription_id}/holds/{hold_id}' as const;
const COMPLAINTS = '/users/{user_id}/subscriptions/{subscription_id}/delivery-complaints' as const;
const ADDRESSES = '/users/{user_id}/temporary-addresses' as const;
const ADDRESS = '/users/{user_id}/temporary-addresses/{temporary_address_id}' as const;

type HoldList = Listed<typeof HOLDS>;
export type Hold = HoldList['data'][number];
/** Where the cut-off stands: today, the first date still open, the instant its changes close, and the zone. */
export type ChangesOpen = HoldList['meta'];
export type TemporaryAddress = Listed<typeof ADDRESSES>['data'][number];
export type Complaint = Listed<typeof COMPLAINTS>['data'][number];
export type HoldCreate = NonNullable<
  paths[typeof HOLDS]['post']['requestBody']
>['content']['application/vnd.api+json']['data']['attributes'];
export type ComplaintCreate = NonNullable<
  paths[typeof COMPLAINTS]['post']['requestBody']
>['content']['application/vnd.api+json']['data']['attributes'];
export type TemporaryAddressCreate = NonNullable<
  paths[typeof ADDRESSES]['post']['requestBody']
>['content']['application/vnd.api+json']['data']['attributes'];

export function listHolds(userId: string, subscriptionId: string) {
  return everyPage((after) =>
    api.GET(HOLDS, {
      params: {
        path: { user_id: userId, subscription_id: subscriptionId },
        query: pageQuery(after),
      },
    }),
  );
}

/** Where the cut-off stands now (read afresh, as a form opens), from the reader's shortest list that says it. */
export async function changesOpen(userId: string): Promise<ChangesOpen | undefined> {
  const { data } = await api.GET(ADDRESSES, { params: { path: { user_id: userId }, query: { 'page[size]': '1' } } });
  return data?.meta;
}

export function addHold(userId: string, subscriptionId: string, attributes: HoldCreate) {
  return api.POST(HOLDS, {
    params: { path: { user_id: userId, subscription_id: subscriptionId } },
    body: { data: { type: 'holds', attributes } },
  });
}

export function withdrawHold(userId: string, subscriptionId: string, id: string) {
  return api.DELETE(HOLD, { params: { path: { user_id: userId, subscription_id: subscriptionId, hold_id: id } } });
}

/** Ends a hold on `endDate` (its last date held), as PATCH endDate does. */
export function endHold(userId: string, subscriptionId: string, id: string, endDate: string) {
  return api.PATCH(HOLD, {
    params: { path: { user_id: userId, subscription_id: subscriptionId, hold_id: id } },
    body: { data: { type: 'holds', id, attributes: { endDate } } },
  });
}

export function listComplaints(userId: string, subscriptionId: string) {
  return everyPage((after) =>
    api.GET(COMPLAINTS, {
      params: {
        path: { user_id: userId, subscription_id: subscriptionId },
        query: pageQuery(after),
      },
    }),
  );
}

export function addComplaint(userId: string, subscriptionId: string, attributes: ComplaintCreate) {
  return api.POST(COMPLAINTS, {
    params: { path: { user_id: userId, subscription_id: subscriptionId } },
    body: { data: { type: 'delivery-complaints', attributes } },
  });
}

export function listTemporaryAddresses(userId: string) {
  return everyPage((after) =>
    api.GET(ADDRESSES, {
      params: {
        path: { user_id: userId },
        query: pageQuery(after),
      },
    }),
  );
}

export function addTemporaryAddress(userId: string, attributes: TemporaryAddressCreate) {
  return api.POST(ADDRESSES, {
    params: { path: { user_id: userId } },
    body: { data: { type: 'temporary-addresses', attributes } },
  });
}

export function deleteTemporaryAddress(userId: string, id: string) {
  return api.DELETE(ADDRESS, { params: { path: { user_id: userId, temporary_address_id: id } } });
}

export function endTemporaryAddress(userId: string, id: string, endDate: string) {
  return api.PATCH(ADDRESS, {
    params: { path: { user_id: userId, temporary_address_id: id } },
    body: { data: { type: 'temporary-addresses', id, attributes: { endDate } } },
  });
}
