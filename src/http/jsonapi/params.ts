/**
 * Path parameters (the values of filters are domain/schema.ts's FilterValue). Ids of users,
 * subscriptions and webhooks are decimal strings of a database sequence; those of products and
 * newsletters are strings (see domain/catalogue.ts). Anything else cannot name a record, so it is
 * a 404 (see validation.ts), never a query.
 */
import { Type } from '@sinclair/typebox';
import { StoredCatalogueId } from '../../domain/catalogue.js';

const Id = Type.String({ pattern: '^[1-9][0-9]{0,14}$' });

export const UserParams = Type.Object({ user_id: Id });
export const SubscriptionParams = Type.Object({ user_id: Id, subscription_id: Id });
export const HoldParams = Type.Object({ user_id: Id, subscription_id: Id, hold_id: Id });
export const ComplaintParams = Type.Object({ user_id: Id, subscription_id: Id, complaint_id: Id });
export const SeatParams = Type.Object({ user_id: Id, subscription_id: Id, seat_id: Id });
export const TemporaryAddressParams = Type.Object({ user_id: Id, temporary_address_id: Id });
export const WebhookParams = Type.Object({ webhook_id: Id });
export const DeliveryParams = Type.Object({ webhook_id: Id, delivery_id: Id });
export const ProductParams = Type.Object({ product_id: StoredCatalogueId });
export const NewsletterParams = Type.Object({ newsletter_id: StoredCatalogueId });
export const ConsentParams = Type.Object({ user_id: Id, newsletter_id: StoredCatalogueId });
/** A reader's link (routes/newsletter-consent-links.ts): the consent it acts on and its token, bounded. */
export const ConsentLinkParams = (maxTokenLength: number) =>
  Type.Object({
    user_id: Id,
    newsletter_id: StoredCatalogueId,
    token: Type.String({ minLength: 1, maxLength: maxTokenLength }),
  });

export const PrivacyRequestParams = Type.Object({ privacy_request_id: Id });
