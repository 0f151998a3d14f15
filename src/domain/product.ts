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
import { DeliveryDays, EVERY_DAY, maskOf, weekdaysOf, WEEKDAYS } from './delivery-days.js';
import { Nullable, StringEnum } from './schema.js';
import { LICENSES, RESOURCES, type License, type Resource } from './subscription.js';

export interface Product extends CatalogueRecord {
  resource: Resource | null;
  license: License | null;
  /** The weekdays it is delivered on, as a mask (see delivery-days.ts). */
  deliveryDays: number;
}

export interface ProductValues extends CatalogueValues {
  resource: Resource | null;
  license: License | null;
  deliveryDays: number;
}

const own = {
  resource: Type.Optional(
    Nullable(StringEnum(RESOURCES, { description: 'What its subscriptions give when they name no resource.' })),
  ),
  license: Type.Optional(
    Nullable(StringEnum(LICENSES, { description: 'The licence its subscriptions usually have.' })),
  ),
  deliveryDays: Type.Optional(
    DeliveryDays(
      `The weekdays it is delivered on, when it gives print (${WEEKDAYS.join(', ')}); every day unless it says otherwise.`,
    ),
  ),
};

const schemas = catalogueWriteSchemas(own);
export const ProductCreateAttributes = schemas.create;
export const ProductUpdateAttributes = schemas.update;

export const ProductAttributes = catalogueReadSchema({
  resource: Nullable(StringEnum(RESOURCES)),
  license: Nullable(StringEnum(LICENSES)),
  deliveryDays: Type.Array(StringEnum(WEEKDAYS)),
});

export const ProductMeta = Type.Object({
  activeSubscriptions: Type.Integer({ description: 'Subscriptions to it that are active now.' }),
});

export function newProductValues(attributes: Static<typeof ProductCreateAttributes>): ProductValues {
  return {
    ...newCatalogueValues(attributes),
    resource: attributes.resource ?? null,
    license: attributes.license ?? null,
    deliveryDays: attributes.deliveryDays === undefined ? EVERY_DAY : maskOf(attributes.deliveryDays),
  };
}

/** The changes an update sends, as a store keeps them. */
export function productChanges(attributes: Static<typeof ProductUpdateAttributes>): Partial<ProductValues> {
  const { deliveryDays, ...rest } = attributes;
  return { ...rest, ...(deliveryDays === undefined ? {} : { deliveryDays: maskOf(deliveryDays) }) };
}

export function toProductAttributes(product: Product): Static<typeof ProductAttributes> {
  return {
    ...toCatalogueAttributes(product),
    resource: product.resource,
    license: product.license,
    deliveryDays: weekdaysOf(product.deliveryDays),
  };
}
