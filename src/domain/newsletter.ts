/**
 * Newsletters: what readers are members of (a user's `newsletters`). A newsletter is a catalogue
 * record and nothing more.
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

export type Newsletter = CatalogueRecord;
export type NewsletterValues = CatalogueValues;

const schemas = catalogueWriteSchemas({});
export const NewsletterCreateAttributes = schemas.create;
export const NewsletterUpdateAttributes = schemas.update;
export const NewsletterAttributes = catalogueReadSchema({});

export const NewsletterMeta = Type.Object({
  members: Type.Integer({ description: 'Users who receive it.' }),
});

export function newNewsletterValues(attributes: Static<typeof NewsletterCreateAttributes>): NewsletterValues {
  return newCatalogueValues(attributes);
}

export function toNewsletterAttributes(newsletter: Newsletter): Static<typeof NewsletterAttributes> {
  return toCatalogueAttributes(newsletter);
}
