/**
 * The print run of a date as a mail house's CSV (`circulation export deliveries`): a row for each
 * delivery GET /deliveries answers, in the same order, with the name for its label, the address
 * in force that date and its copies; narrowed as the API narrows it, across pages. And the print
 * list of a date (`circulation export --resource print --on`), which is that run in its columns.
 */
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { parse } from 'csv-parse/sync';
import { ADDRESS_FIELDS, runOf } from '../../src/domain/delivery.js';
import { parseDate } from '../../src/domain/publication.js';
import { PRINT_LIST_COLUMNS } from '../../src/transfer/columns.js';
import {
  exportPrintRun,
  exportRun,
  PRINT_RUN_COLUMNS,
  RUN_COLUMNS,
  type PrintRunExportOptions,
  type RunExportOptions,
} from '../../src/transfer/export-deliveries.js';
import { createUser } from '../support/fixtures.js';
import { createPrintProduct, createPrintSubscription, dateIn, daysAfter, nextWeekday } from '../support/print.js';
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

/** The CSV exportPrintRun writes for the run of `on`, as rows of cells by column. */
async function printList(
  service: Service,
  on: string,
  options: Partial<PrintRunExportOptions> = {},
): Promise<{ header: string; rows: Record<string, string>[] }> {
  const out = new PassThrough();
  const chunks: Buffer[] = [];
  out.on('data', (chunk: Buffer) => chunks.push(chunk));
  await exportPrintRun(service.store, out, { run: runOf(parseDate(on) as number, 'UTC'), ...options });
  const text = Buffer.concat(chunks).toString('utf8');
  return { header: text.split('\n')[0] as string, rows: parse(text, { columns: true }) };
}

forEachStore((kind) => {
  describe('the print list of a publication date', () => {
    const monday = nextWeekday(0, 30);
    const sunday = daysAfter(monday, 6);
    let service: Service;
    let paper: string;
    let sundays: string;
    const users: Record<string, string> = {};
    const subscriptions: Record<string, string> = {};
    before(async () => {
      service = await startService(kind);
      paper = await createPrintProduct(service.client);
      sundays = await createPrintProduct(service.client, { deliveryDays: ['sunday'] });
      for (const [who, product] of [
        ['Home', paper],
        ['Moved', paper],
        ['Held', paper],
        ['Sundays', sundays],
      ] as const) {
        users[who] = await createUser(service.client, {
          givenName: 'Ada',
          familyName: who,
          email: `${who.toLowerCase()}@print.example`,
          telephone: '+44 20 7946 0000',
          internalNotes: 'never on a label',
          address: { streetAddress: `1 ${who} Street`, postalCode: 'EC1', addressCountry: 'GB' },
        });
        subscriptions[who] = await createPrintSubscription(service.client, users[who]!, {}, product);
      }
      const moved = await service.client.post(`/users/${users.Moved}/temporary-addresses`, {
        data: {
          type: 'temporary-addresses',
          attributes: {
            startDate: daysAfter(monday, -1),
            endDate: daysAfter(monday, 1),
            address: { streetAddress: '1 Beach Road', postalCode: 'TR1', addressCountry: 'GB' },
          },
        },
      });
      assert.equal(moved.status, 201, moved.text);
      const held = await service.client.post(`/users/${users.Held}/subscriptions/${subscriptions.Held}/holds`, {
        data: { type: 'holds', attributes: { startDate: monday, endDate: daysAfter(monday, 2) } },
      });
      assert.equal(held.status, 201, held.text);
      await createUser(service.client, { familyName: 'Online' });
    });
    after(() => service.close());

    it("is that date's run in the print list's columns: a held reader left out, a temporary address in place of home", async () => {
      const { header, rows } = await printList(service, monday);
      assert.equal(header, PRINT_LIST_COLUMNS.join(','));
      assert.deepEqual(
        rows.map((row) => [row.name, row['address.streetAddress'], row['address.postalCode'], row.product, row.copies]),
        [
          ['Ada Home', '1 Home Street', 'EC1', paper, '1'],
          ['Ada Moved', '1 Beach Road', 'TR1', paper, '1'],
        ],
      );
    });

    it('has the readers and addresses the run of that date has, row for row', async () => {
      for (const on of [monday, sunday, daysAfter(monday, 3)]) {
        const run = await exported(service, { date: on, run: runOf(parseDate(on) as number, 'UTC') });
        const list = (
          await printList(service, on, {
            columns: ['id', 'name', ...ADDRESS_FIELDS.map((f) => `address.${f}`), 'product', 'copies'],
          })
        ).rows;
        const address = (row: Record<string, string>) => ADDRESS_FIELDS.map((f) => row[`address.${f}`]);
        assert.deepEqual(
          list.map((row) => [row.id, row.name, ...address(row), row.product, row.copies]),
          run.map((row) => [row.user, row.name, ...address(row), row.product, row.copies]),
          on,
        );
      }
    });

    it('gives nobody of a product on a day it is not delivered, and its readers on a day it is', async () => {
      assert.deepEqual((await printList(service, monday, { product: sundays })).rows, []);
      assert.deepEqual(
        (await printList(service, sunday, { product: sundays })).rows.map((row) => row.name),
        ['Ada Sundays'],
      );
      // The held reader is back once the hold is over.
      assert.deepEqual(
        (await printList(service, sunday)).rows.map((row) => row.name),
        ['Ada Home', 'Ada Moved', 'Ada Held', 'Ada Sundays'],
      );
    });

    it('writes the columns asked for, in their order, and never an email, telephone number or note', async () => {
      const { header, rows } = await printList(service, monday, {
        columns: ['copies', 'familyName', 'address.postalCode', 'id'],
        csvFor: 'machines',
      });
      assert.equal(header, 'copies,familyName,address.postalCode,id');
      assert.deepEqual(
        rows.map((row) => Object.values(row)),
        [
          ['1', 'Home', 'EC1', users.Home],
          ['1', 'Moved', 'TR1', users.Moved],
        ],
      );
      const all = await printList(service, sunday, { columns: PRINT_RUN_COLUMNS });
      assert.doesNotMatch(JSON.stringify(all.rows), /@|\+44|never on a label/);
    });
  });
});
