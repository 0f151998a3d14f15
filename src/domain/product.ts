/**
 * Products: what a subscription is sold as. Beyond the core of every catalogue record, a product
 * may name the `resource` and `license` its subscriptions give by default: a subscription that
 * names no resource of its own gives its product's.
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
import { Nullable, StringEnum } from './schema.js';
import { LICENSES, RESOURCES, type License, type Resource } from './subscription.js';

export interface Product extends CatalogueRecord {
  resource: Resource | null;
  license: License | null;
}

export interface ProductValues extends CatalogueValues {
  resource: Resource | null;
  license: License | null;
}

const own = {
  resource: Type.Optional(
    Nullable(StringEnum(RESOURCES, { description: 'What its subscriptions give when they name no resource.' })),
  ),
  license: Type.Optional(
    Nullable(StringEnum(LICENSES, { description: 'The licence its subscriptions usually have.' })),
  ),
};

const schemas = catalogueWriteSchemas(own);
export const ProductCreateAttributes = schemas.create;
export const ProductUpdateAttributes = schemas.update;

export const ProductAttributes = catalogueReadSchema({
  resource: Nullable(StringEnum(RESOURCES)),
  license: Nullable(StringEnum(LICENSES)),
});

export const ProductMeta = Type.Object({
  activeSubscriptions: Type.Integer({ description: 'Subscriptions to it that are active now.' }),
});

export function newProductValues(attributes: Static<typeof ProductCreateAttributes>): ProductValues {
  return {
    ...newCatalogueValues(attributes),
    resource: attributes.resource ?? null,
    license: attributes.license ?? null,
  };
}

export function toProductAttributes(product: Product): Static<typeof ProductAttributes> {
  return { ...toCatalogueAttributes(product), resource: product.resource, license: product.license };
}
