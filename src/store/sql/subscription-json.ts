/**
 * A subscription of a user's list as JSON text: its resource object (type, id, and attributes
 * with its status at `now`) and, apart, its relationships (the product), since the document
 * writes the request's links between them, as the general path's serializer does. Generated from
 * the read schemas (`SubscriptionAttributes`, `SubscriptionRelationshipsRead`) in their order, the
 * status from the conditions the status filter uses (`statusCondition`);
 * test/http/routes/subscriptions-rendered.test.ts holds the bytes to the general path's.
 *
 * Dates are written in JavaScript by `formatInstant`, as the general path writes them: a client may
 * send any date from the year 0000 on, and an offset may carry one past 9999, which neither
 * database writes as toISOString does (PostgreSQL has no year 0).
 */
import { PRODUCTS } from '../../domain/catalogue.js';
import { formatInstant } from '../../domain/dates.js';
import {
  SUBSCRIPTION_STATUSES,
  SubscriptionAttributes,
  SubscriptionRelationshipsRead,
  SUBSCRIPTIONS,
} from '../../domain/subscription.js';
import { join, raw, sql, type Dialect, type Sql } from './builder.js';
import { booleanJson, JSON_TEXT, literal, resourceText, type Piece, type ResourceText } from './json-text.js';
import { instantValue, seconds } from './rows.js';
import { statusCondition } from './subscriptions.js';
import { columnOf } from './users.js';

const READ_SCHEMAS = SubscriptionAttributes.properties as Record<string, { type?: unknown; format?: string }>;

/** The status at `at`, from the conditions of each status (which between them cover every subscription). */
function statusValue(at: unknown): Sql {
  const arms = SUBSCRIPTION_STATUSES.map(
    (status) => sql`WHEN ${statusCondition('s', status, at)} THEN ${literal(JSON.stringify(status))}`,
  );
  return sql`CASE ${join(arms, ' ')} END`;
}

/** An instant, or null, written as the general path writes it. */
function instantWriter(column: string): Piece {
  return { column, write: (value) => (value === null ? 'null' : JSON.stringify(formatInstant(seconds(value)))) };
}

/** How an attribute's value is written: by SQL, or here. */
function attributeValue(attribute: string, dialect: Dialect, at: unknown): Piece {
  const column = `s.${columnOf(attribute)}`;
  const schema = READ_SCHEMAS[attribute]!;
  const types = [schema.type].flat();
  if (attribute === 'status') return statusValue(at);
  if (schema.format === 'date-time') return instantWriter(column);
  if (types.includes('boolean')) return booleanJson(column);
  if (types.includes('string')) return raw(JSON_TEXT[dialect].text(column));
  throw new Error(
    `The subscription attribute ${attribute} has no rendering in SQL (src/store/sql/subscription-json.ts).`,
  );
}

/** The product a subscription is of, as its relationship's linkage, or null. */
function productValue(dialect: Dialect): Sql {
  const identifier = literal(`{"type":${JSON.stringify(PRODUCTS)},"id":`);
  return sql`CASE WHEN s.product_id IS NULL THEN 'null'
    ELSE ${identifier} || ${raw(JSON_TEXT[dialect].text('s.product_id'))} || '}' END`;
}

/** How subscriptions `s` are written: select the columns of `resource`, then those of `relationships`. */
export interface SubscriptionText {
  resource: ResourceText;
  relationships: ResourceText;
}

/** Subscriptions `s` as JSON text, their status at `now` (epoch seconds). */
export function subscriptionText(dialect: Dialect, now: number): SubscriptionText {
  const at = instantValue(dialect, now);
  const attributes = Object.keys(READ_SCHEMAS).flatMap((attribute, i) => [
    `${i === 0 ? '' : ','}${JSON.stringify(attribute)}:`,
    attributeValue(attribute, dialect, at),
  ]);
  const relationships = Object.keys(SubscriptionRelationshipsRead.properties).flatMap((relationship, i) => {
    if (relationship !== 'product') throw new Error(`The relationship ${relationship} has no rendering in SQL.`);
    return [`${i === 0 ? '' : ','}${JSON.stringify(relationship)}:{"data":`, productValue(dialect), '}'];
  });
  return {
    resource: resourceText([
      `{"type":${JSON.stringify(SUBSCRIPTIONS)},"id":"`,
      raw('CAST(s.id AS TEXT)'),
      '","attributes":{',
      ...attributes,
      '}}',
    ]),
    relationships: resourceText(['{', ...relationships, '}']),
  };
}

/** A subscription read with `SubscriptionText`'s columns from `start` on, its id before them. */
export function renderedSubscription(text: SubscriptionText, values: readonly unknown[], start: number) {
  return {
    id: String(values[start - 1]),
    json: text.resource.assemble(values, start),
    relationships: text.relationships.assemble(values, start + text.resource.width),
  };
}
