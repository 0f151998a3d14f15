/**
 * A reader's newsletter consents as JSON:API resource objects: one per newsletter (its id the
 * newsletter's), and each change of one in its history, with who made it.
 */
import { Type, type Static } from '@sinclair/typebox';
import { Actor } from '../../domain/audit.js';
import { NEWSLETTERS } from '../../domain/catalogue.js';
import {
  ConsentAttributes,
  ConsentChangeAttributes,
  NEWSLETTER_CONSENT_CHANGES,
  NEWSLETTER_CONSENTS,
  toConsentAttributes,
  type StoredConsent,
  type StoredConsentChange,
} from '../../domain/consent.js';
import { formatInstant } from '../../domain/dates.js';
import { exampleLinks, resourceObject } from './documents.js';
import { Identifier } from './resources.js';

const NewsletterLink = Type.Object({ newsletter: Type.Object({ data: Identifier(NEWSLETTERS) }) });

export const ConsentResource = resourceObject(NEWSLETTER_CONSENTS, ConsentAttributes, NewsletterLink);

/** A change has no address of its own: it is read in its consent's history. */
export const ConsentChangeResource = Type.Object({
  type: Type.Literal(NEWSLETTER_CONSENT_CHANGES),
  id: Type.String(),
  attributes: Type.Object({ ...ConsentChangeAttributes.properties, actor: Actor }),
  relationships: NewsletterLink,
});

/** Ada's consent to the newsletter briefing, as her email provider last reported it. */
export const AdaConsent = {
  type: NEWSLETTER_CONSENTS,
  id: 'briefing',
  attributes: { state: 'unsubscribed', source: 'email-provider', changedAt: '2026-06-20T07:02:00+00:00' },
  relationships: { newsletter: { data: { type: NEWSLETTERS, id: 'briefing' } } },
  links: exampleLinks('/users/42/newsletter-consents/briefing'),
} satisfies Static<typeof ConsentResource>;

/** The first change of it: pending, when the website signed her up (the newsletter asks her to confirm). */
export const AdaConsentChange = {
  type: NEWSLETTER_CONSENT_CHANGES,
  id: '11',
  attributes: {
    state: 'pending',
    source: 'api',
    changedAt: '2026-05-01T10:00:00+00:00',
    actor: { type: 'credentials', id: '3', name: 'Website' },
  },
  relationships: AdaConsent.relationships,
} satisfies Static<typeof ConsentChangeResource>;

/** The path of a reader's consents. */
export function consentsPath(userId: string): string {
  return `/users/${userId}/newsletter-consents`;
}

function consentPath(userId: string, newsletterId: string): string {
  return `${consentsPath(userId)}/${encodeURIComponent(newsletterId)}`;
}

const newsletterOf = (newsletterId: string) => ({ newsletter: { data: { type: NEWSLETTERS, id: newsletterId } } });

export function renderConsent(base: string, consent: StoredConsent) {
  return {
    type: NEWSLETTER_CONSENTS,
    id: consent.newsletterId,
    attributes: toConsentAttributes(consent, formatInstant),
    relationships: newsletterOf(consent.newsletterId),
    links: { self: `${base}${consentPath(consent.userId, consent.newsletterId)}` },
  };
}

/** The path of one consent's history. */
export function historyPath(userId: string, newsletterId: string): string {
  return `${consentPath(userId, newsletterId)}/history`;
}

/** A change of a consent, with its actor as the events feed names one (`name` where the caller may know it). */
export function renderConsentChange(change: StoredConsentChange, actor: Actor) {
  return {
    type: NEWSLETTER_CONSENT_CHANGES,
    id: change.id,
    attributes: { state: change.state, source: change.source, changedAt: formatInstant(change.changedAt), actor },
    relationships: newsletterOf(change.newsletterId),
  };
}
