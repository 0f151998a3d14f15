/**
 * A reader's newsletter consents as the console reads them: one per newsletter the reader ever
 * had (where it stands, how it came to and when), and one consent's every change, oldest first.
 * The console changes them through the reader's `newsletters: {add, remove}` (api/readers.ts).
 */
import { api } from './client';
import { everyPage, pageQuery, type Listed } from './pages';

const CONSENTS = '/users/{user_id}/newsletter-consents' as const;
const HISTORY = '/users/{user_id}/newsletter-consents/{newsletter_id}/history' as const;

export type Consent = Listed<typeof CONSENTS>['data'][number];
export type ConsentState = Consent['attributes']['state'];
export type ConsentSource = Consent['attributes']['source'];
export type ConsentChange = Listed<typeof HISTORY>['data'][number];

export function listConsents(userId: string) {
  return everyPage((after) => api.GET(CONSENTS, { params: { path: { user_id: userId }, query: pageQuery(after) } }));
}

export function consentHistory(userId: string, newsletterId: string) {
  return everyPage((after) =>
    api.GET(HISTORY, {
      params: { path: { user_id: userId, newsletter_id: newsletterId }, query: pageQuery(after) },
    }),
  );
}
