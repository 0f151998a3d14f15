/**
 * GET /deliveries is written by the database (store/sql/delivery-json.ts) and spliced into the
 * document. It must send the bytes the response schema would write for the deliveries the store
 * reads field by field (`listDeliveries`, which the CSV export uses): every field of the address
 * in force, awkward strings, a delivery with no product, a redelivery, and the same rows for every
 * filter and page.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, it } from 'node:test';
import { runOf } from '../../../src/domain/delivery.js';
import { DEFAULT_CALENDAR, firstOpenDate, formatDate, parseDate } from '../../../src/domain/publication.js';
import type { RunPageQuery } from '../../../src/store/port.js';
import { forEachStoreAndCitus } from '../../support/citus.js';
import { createUser } from '../../support/fixtures.js';
import { createPrintProduct, createPrintSubscription, dateIn, deliveryResource } from '../../support/print.js';
import { startService, type Service } from '../../support/service.js';

/** Every character JSON escapes or a database might: quotes, backslashes, controls, separators, emoji, accents. */
const AWKWARD = 'She said "hi" \\ back\nline\ttab\u0001\u001f\u007f \u2028\u2029 😀 é Ünïcödé ß 漢字 </script>';

forEachStoreAndCitus((kind) => {
  let service: Service;
  /** The first date still open: a complaint's redelivery goes on its run. */
  const date = formatDate(firstOpenDate(Math.floor(Date.now() / 1000), DEFAULT_CALENDAR));
  const postalCode = `R ${randomUUID().slice(0, 8)}`;
  let product = '';
  /** The subscriptions of the awkward reader (redelivered), the minimal one (of a product) and the one away. */
  const ids = { redelivered: '', ofProduct: '', away: '' };

  before(async () => {
    service = await startService(kind);
    const { client } = service;
    product = await createPrintProduct(client);
    const awkward = await createUser(client, {
      familyName: AWKWARD,
      address: {
        streetAddress: AWKWARD,
        unitNumber: '0123',
        addressLocality: 'true',
        addressRegion: 'null',
        addressCountry: 'GB',
        postalCode,
      },
    });
    ids.redelivered = await createPrintSubscription(client, awkward);
    const complained = await client.post(`/users/${awkward}/subscriptions/${ids.redelivered}/delivery-complaints`, {
      data: {
        type: 'delivery-complaints',
        attributes: { deliveryDate: dateIn(-1), reason: 'wet', remedy: 'redeliver' },
      },
    });
    assert.equal(complained.status, 201, complained.text);
    assert.equal(complained.body.data.attributes.redeliveryDate, date);
    // No address at all, of a product.
    ids.ofProduct = await createPrintSubscription(
      client,
      await createUser(client, { familyName: 'Minimal' }),
      {},
      product,
    );
    // Away on the date, at an address of awkward text that leaves fields unset.
    const away = await createUser(client, { address: { streetAddress: 'Home', postalCode } });
    ids.away = await createPrintSubscription(client, away);
    const moved = await client.post(`/users/${away}/temporary-addresses`, {
      data: {
        type: 'temporary-addresses',
        attributes: { startDate: date, endDate: date, address: { streetAddress: `${AWKWARD}\r\n\b\f`, postalCode } },
      },
    });
    assert.equal(moved.status, 201, moved.text);
    for (let i = 0; i < 3; i += 1) await createPrintSubscription(client, await createUser(client, {}));
  });
  after(() => service.close());

  /** The run's page as sent, and as the store reads it field by field rendered through the schema's order. */
  async function bothPaths(query: string, page: RunPageQuery, on = date) {
    const response = await service.client.get(`/deliveries?filter[date]=${on}${query}`);
    assert.equal(response.status, 200, response.text);
    const deliveries = await service.store.deliveries.list(runOf(parseDate(on) as number, 'UTC'), page);
    const expected = deliveries.slice(0, page.limit - 1).map((delivery) => deliveryResource(on, delivery));
    const sent = response.text.slice(response.text.indexOf(',"data":[') + ',"data":'.length, -1);
    assert.equal(sent, JSON.stringify(expected));
    return expected;
  }

  it('sends the bytes of every delivery as the schema writes them: addresses, no product, a redelivery', async () => {
    const sent = await bothPaths('', { limit: 101 });
    assert.equal(sent.length, 6);
    const of = (id: string) => sent.find((d) => d.relationships.subscription.data.id === id);
    const shape = (id: string) => {
      const { attributes, relationships } = of(id) ?? assert.fail(`no delivery of ${id}`);
      return [attributes.redelivery, attributes.copies, relationships.product.data?.id];
    };
    assert.deepEqual(shape(ids.redelivered), [true, 2, undefined]);
    assert.deepEqual(shape(ids.ofProduct), [false, 1, product]);
    assert.deepEqual(shape(ids.away), [false, 1, undefined]);
    assert.equal(of(ids.redelivered)?.attributes.address.streetAddress, AWKWARD);
    assert.equal(of(ids.away)?.attributes.address.streetAddress, `${AWKWARD}\r\n\b\f`);
    assert.equal(of(ids.ofProduct)?.attributes.address.postalCode, null);
  });

  it('sends the same rows as the store reads for each filter and page', async () => {
    await bothPaths(`&filter[postalCode]=${encodeURIComponent(postalCode)}`, { postalCode, limit: 101 });
    await bothPaths(`&filter[product]=${product}`, { product, limit: 101 });
    const [, second] = await bothPaths('&page[size]=2', { limit: 3 });
    assert.ok(second);
    const after = second.relationships.subscription.data.id;
    await bothPaths(`&page[size]=2&page[after]=${after}`, { afterId: after, limit: 3 });
    const farOut = formatDate((parseDate(date) as number) + 36_500);
    assert.deepEqual(await bothPaths('', { limit: 101 }, farOut), []);
  });
});
