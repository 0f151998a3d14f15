/**
 * Newsletters: what readers are members of (a user's `newsletters`). Beyond the core of every
 * catalogue record, a newsletter may ask an added reader to confirm first (`doubleOptIn`): an add
 * then makes their consent `pending` (domain/consent.ts), not yet a membership.
 */
import { Type, type Static } from '@sinclair/typebox';
import {
  catalogueReadSchema,
  catalogueWriteSchemas,
  newCatalogueValues,
  toCatalogueAttributes,
  type CatalogueRecord,
  type CatalogueValues,
} from './catalogue.js';

export interface Newsletter extends CatalogueRecord {
  doubleOptIn: boolean;
}

export interface NewsletterValues extends CatalogueValues {
  doubleOptIn: boolean;
}

const schemas = catalogueWriteSchemas({
  doubleOptIn: Type.Optional(
    Type.Boolean({
      default: false,
      description:
        'Whether a reader added to it is pending until they confirm (their consent is pending, and they are not ' +
        'yet in its members nor in their newsletters); false unless it says otherwise. Changing it changes no reader.',
    }),
  ),
});
export const NewsletterCreateAttributes = schemas.create;
export const NewsletterUpdateAttributes = schemas.update;
export const NewsletterAttributes = catalogueReadSchema({ doubleOptIn: Type.Boolean() });

export const NewsletterMeta = Type.Object({
  members: Type.Integer({ description: 'Users who receive it (their consent is subscribed; not those pending).' }),
});

export function newNewsletterValues(attributes: Static<typeof NewsletterCreateAttributes>): NewsletterValues {
  return { ...newCatalogueValues(attributes), doubleOptIn: attributes.doubleOptIn ?? false };
}

export function toNewsletterAttributes(newsletter: Newsletter): Static<typeof NewsletterAttributes> {
  return { ...toCatalogueAttributes(newsletter), doubleOptIn: newsletter.doubleOptIn };
}
