/**
 * The print run of a date as a mail house's CSV (`circulation export deliveries`): a row for each
 * delivery GET /deliveries answers, in the same order, with the name for its label, the address
 * in force that date and its copies; narrowed as the API narrows it, across pages.
 */
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { parse } from 'csv-parse/sync';
import { runOf } from '../../src/domain/delivery.js';
import { parseDate } from '../../src/domain/publication.js';
import { exportRun, RUN_COLUMNS, type RunExportOptions } from '../../src/transfer/export-deliveries.js';
import { createUser } from '../support/fixtures.js';
import { createPrintProduct, createPrintSubscription, dateIn } from '../support/print.js';
import { startService, type Service } from '../support/service.js';
import { forEachStore } from '../support/stores.js';

const date = dateIn(30);

/** The CSV exportRun writes for the run of `date`, as rows of cells by column. */
async function exported(service: Service, options: Partial<RunExportOptions> = {}): Promise<Record<string, string>[]> {
  const out = new PassThrough();
  const chunks: Buffer[] = [];
  out.on('data', (chunk: Buffer) => chunks.push(chunk));
  await exportRun(service.store, out, { date, run: runOf(parseDate(date) as number, 'UTC'), ...options });
  const text = Buffer.concat(chunks).toString('utf8');
  assert.equal(text.split('\n')[0], RUN_COLUMNS.join(','));
  return parse(text, { columns: true });
}

forEachStore((kind) => {
  describe('the print run exported as CSV', () => {
    let service: Service;
    let paper: string;
    const subscriptions: string[] = [];
    const users: string[] = [];
    before(async () => {
      service = await startService(kind);
      paper = await createPrintProduct(service.client);
      for (let i = 0; i < 3; i += 1) {
        const user = await createUser(service.client, {
          givenName: `Ada${i}`,
          familyName: 'Lovelace',
          honorificPrefix: i === 0 ? 'Dr' : null,
          address: { streetAddress: `${i} High Street`, postalCode: `EC${i}`, addressCountry: 'GB' },
        });
        users.push(user);
        subscriptions.push(await createPrintSubscription(service.client, user, {}, i === 2 ? undefined : paper));
      }
      // A temporary address in force on the date: the run goes there, not home.
      const moved = await service.client.post(`/users/${users[1]}/temporary-addresses`, {
        data: {
          type: 'temporary-addresses',
          attributes: {
            startDate: dateIn(20),
            endDate: dateIn(40),
            address: { streetAddress: '1 Beach Road', postalCode: 'TR1', addressCountry: 'GB' },
          },
        },
      });
      assert.equal(moved.status, 201, moved.text);
      // An online reader is in no run.
      await createUser(service.client, { familyName: 'Online' });
    });
    after(() => service.close());

    it('writes a row for each delivery GET /deliveries answers, in its order, with label name, address and copies', async () => {
      const rows = await exported(service);
      const api = (await service.client.get(`/deliveries?filter[date]=${date}`)).body.data;
      assert.deepEqual(
        rows.map((row) => row.subscription),
        api.map(
          (delivery: { relationships: { subscription: { data: { id: string } } } }) =>
            delivery.relationships.subscription.data.id,
        ),
      );
      assert.deepEqual(
        rows.map((row) => [
          row.name,
          row['address.streetAddress'],
          row['address.postalCode'],
          row.copies,
          row.redelivery,
        ]),
        [
          ['Dr Ada0 Lovelace', '0 High Street', 'EC0', '1', 'false'],
          ['Ada1 Lovelace', '1 Beach Road', 'TR1', '1', 'false'],
          ['Ada2 Lovelace', '2 High Street', 'EC2', '1', 'false'],
        ],
      );
      assert.deepEqual(
        rows.map((row) => [row.date, row.product]),
        [
          [date, paper],
          [date, paper],
          [date, ''],
        ],
      );
    });

    it('reads the run a page at a time, each after the last, missing none', async () => {
      assert.deepEqual(
        (await exported(service, { pageSize: 2 })).map((row) => row.subscription),
        subscriptions,
      );
      assert.deepEqual(
        (await exported(service, { pageSize: 1 })).map((row) => row.subscription),
        subscriptions,
      );
    });

    it('narrows to a product and to a postal code as the API does', async () => {
      assert.deepEqual(
        (await exported(service, { product: paper })).map((row) => row.subscription),
        subscriptions.slice(0, 2),
      );
      assert.deepEqual(
        (await exported(service, { postalCode: 'TR1' })).map((row) => row.subscription),
        [subscriptions[1]],
      );
      assert.deepEqual(await exported(service, { postalCode: 'EC1' }), []);
    });

    it('marks a redelivery a complaint asked for, on the run of its date', async () => {
      const complaint = await service.client.post(
        `/users/${users[2]}/subscriptions/${subscriptions[2]}/delivery-complaints`,
        {
          data: {
            type: 'delivery-complaints',
            attributes: { deliveryDate: dateIn(-1), reason: 'wet', remedy: 'redeliver' },
          },
        },
      );
      assert.equal(complaint.status, 201, complaint.text);
      const on = complaint.body.data.attributes.redeliveryDate as string;
      const rows = await exported(service, { date: on, run: runOf(parseDate(on) as number, 'UTC') });
      const row = rows.find((r) => r.subscription === subscriptions[2]);
      assert.deepEqual([row?.redelivery, row?.copies], ['true', '2']);
      assert.ok(rows.filter((r) => r !== row).every((r) => r.redelivery === 'false'));
    });

    it('writes the header alone for a run of no delivery', async () => {
      const far = dateIn(365 * 100);
      assert.deepEqual(await exported(service, { date: far, run: runOf(parseDate(far) as number, 'UTC') }), []);
    });
  });
});
