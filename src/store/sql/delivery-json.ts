/**
 * A delivery of the print run as the JSON text of its resource object: the database writes a page
 * of the run as it writes a page of users (user-json.ts), so that its rows are not turned into
 * values and back again field by field. The text is generated from the definitions the resource's
 * schema is made of (`ADDRESS_FIELDS`, the attributes in their order), and
 * test/http/routes/deliveries-rendered.test.ts holds it to the bytes the response schema writes.
 */
import { PRODUCTS } from '../../domain/catalogue.js';
import { ADDRESS_FIELDS, DELIVERIES } from '../../domain/delivery.js';
import { SUBSCRIPTIONS } from '../../domain/subscription.js';
import { USERS } from '../../domain/user.js';
import { raw, sql, type Dialect, type Sql } from './builder.js';
import { JSON_TEXT, resourceText, type Piece } from './json-text.js';

/** A relationship to one resource whose id (digits) `id` writes. */
const identifier = (type: string, id: string): Piece[] => [
  `{"data":{"type":${JSON.stringify(type)},"id":"`,
  raw(id),
  '"}}',
];

/**
 * The text of the delivery of subscription `s` on the date written `date` (YYYY-MM-DD, as
 * `formatDate` writes it, so that it needs no escaping; a parameter, so that a statement serves
 * every date, or a kept run's column), sent to the address whose fields (`address.postalCode`…)
 * `address` writes as SQL, with `copies` copies; a redelivery where `r` has a row.
 */
export function deliveryJson(dialect: Dialect, date: unknown, address: (field: string) => string, copies: Sql): Sql {
  const written = JSON_TEXT[dialect];
  const { text } = written;
  const dateText = sql`CAST(${date} AS TEXT)`;
  const pieces: Piece[] = [
    `{"type":${JSON.stringify(DELIVERIES)},"id":"`,
    dateText,
    '.',
    raw('CAST(s.id AS TEXT)'),
    '","attributes":{"date":"',
    dateText,
    '","address":',
    ...ADDRESS_FIELDS.flatMap((field, i) => [
      `${i === 0 ? '{' : ','}${JSON.stringify(field)}:`,
      raw(text(address(`address.${field}`))),
    ]),
    '},"redelivery":',
    raw(`CASE WHEN r.copies IS NULL THEN 'false' ELSE 'true' END`),
    ',"copies":',
    sql`CAST(${copies} AS TEXT)`,
    '},"relationships":{"user":',
    ...identifier(USERS, 'CAST(s.user_id AS TEXT)'),
    ',"subscription":',
    ...identifier(SUBSCRIPTIONS, 'CAST(s.id AS TEXT)'),
    ',"product":{"data":',
    raw(`CASE WHEN s.product_id IS NULL THEN 'null'
      ELSE '{"type":${JSON.stringify(PRODUCTS)},"id":' || ${text('s.product_id')} || '}' END`),
    '}}}',
  ];
  return resourceText(pieces, written).columns;
}
