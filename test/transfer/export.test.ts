/**
 * What an export writes, on both stores: the print list a mail house receives (name, address,
 * product and copies, one row a reader and product, no contact details or notes), for now or for
 * a date to come; columns chosen by name; cells neutralised for spreadsheets or left as they are
 * for machines. Run through `exportUsers` itself: the command's own tests spawn it (few, they are slow).
 */
import { EVERY_DAY } from '../../src/domain/delivery-days.js';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { parse as parseCsv } from 'csv-parse/sync';
import { nowInSeconds } from '../../src/domain/dates.js';
import type { SubscriptionValues } from '../../src/domain/subscription.js';
import { PRINT_LIST_COLUMNS } from '../../src/transfer/columns.js';
import { exportUsers, type ExportOptions } from '../../src/transfer/export.js';
import { AUDIT, subscriptionValues, uniqueEmail } from '../support/fixtures.js';
import { forEachStore, openTestStore, type TestStore } from '../support/stores.js';

const DAY = 24 * 3600;
const now = nowInSeconds();
/** The start of tomorrow in UTC: the instant `--on <tomorrow>` asks about. */
const tomorrow = Math.floor(now / DAY) * DAY + DAY;

/** The CSV an export writes with these options: its header and its rows. */
async function exportedCsv(store: TestStore, options: Omit<ExportOptions, 'format'>) {
  let text = '';
  const out = new Writable({
    write(chunk, _encoding, done) {
      text += chunk;
      done();
    },
  });
  await exportUsers(store.store, out, { format: 'csv', ...options });
  const [header = [], ...rows] = parseCsv(text, { relax_column_count: false }) as string[][];
  return { text, header, rows };
}

forEachStore((kind) => {
  describe('an export', () => {
    let store: TestStore;
    before(async () => {
      store = await openTestStore(kind);
      const catalogue = { description: null, active: true, license: null, deliveryDays: EVERY_DAY };
      await store.store.products.create('print-daily', { ...catalogue, name: 'Daily', resource: 'print' }, AUDIT);
      await store.store.products.create('print-weekend', { ...catalogue, name: 'Weekend', resource: 'print' }, AUDIT);
      await store.store.products.create('digital', { ...catalogue, name: 'Digital', resource: 'online' }, AUDIT);
      const reader = async (fields: Record<string, string>, subscriptions: Partial<SubscriptionValues>[]) => {
        const user = await store.store.users.create(
          { email: uniqueEmail('export.example'), passwordHash: null, fields, newsletters: [] },
          AUDIT,
        );
        for (const values of subscriptions) {
          // Each takes its resource from its product, as a catalogue's subscriptions usually do.
          await store.store.subscriptions.create(user.id, subscriptionValues({ resource: null, ...values }), AUDIT);
        }
      };
      const address = (street: string) => ({
        'address.streetAddress': street,
        'address.addressLocality': 'Springfield',
        'address.postalCode': '62701',
        'address.addressCountry': 'US',
      });
      // Two copies of the daily, and a digital subscription, which gives no print.
      await reader(
        {
          honorificPrefix: 'Dr.',
          givenName: 'Ada',
          familyName: 'Lovelace',
          ...address('1 Main Street'),
          telephone: '+1 217 555 0100',
          internalNotes: 'Owes us for March',
          circulationNumber: 'C-1',
        },
        [{ productId: 'print-daily' }, { productId: 'print-daily' }, { productId: 'digital' }],
      );
      // The weekend edition, ending as tomorrow begins: on today's list, not on tomorrow's.
      await reader({ givenName: 'Bob', familyName: 'Bell', ...address('2 Main Street'), circulationNumber: 'C-2' }, [
        { productId: 'print-weekend', dateEnded: tomorrow },
      ]);
      // The daily from tomorrow on: on tomorrow's list only.
      await reader({ familyName: 'Cy', ...address('3 Main Street'), circulationNumber: 'C-3' }, [
        { productId: 'print-daily', dateStarted: tomorrow },
      ]);
      await reader({ familyName: 'Dee', circulationNumber: 'C-4' }, [{ productId: 'digital' }]);
    });
    after(() => store.close());

    it('lists who receives print as name, address, product and copies, a row a reader and product, and nothing else', async () => {
      const { text, header, rows } = await exportedCsv(store, { activeSubscription: { at: now, resource: 'print' } });
      // name, the address's fields, product, copies (see columns.test.ts)
      assert.deepEqual(header, PRINT_LIST_COLUMNS);
      assert.deepEqual(rows, [
        ['Dr. Ada Lovelace', '1 Main Street', '', 'Springfield', '', 'US', '62701', 'print-daily', '2'],
        ['Bob Bell', '2 Main Street', '', 'Springfield', '', 'US', '62701', 'print-weekend', '1'],
      ]);
      assert.doesNotMatch(text, /@|555|Owes|C-1/);
    });

    it('lists who is to receive print on a date to come: who begins then, and not who ends as it begins', async () => {
      const { rows } = await exportedCsv(store, { activeSubscription: { at: tomorrow, resource: 'print' } });
      assert.deepEqual(
        rows.map((row) => [row[0], row.at(-2), row.at(-1)]),
        [
          ['Dr. Ada Lovelace', 'print-daily', '2'],
          ['Cy', 'print-daily', '1'],
        ],
      );
    });

    it('writes the columns asked for, in that order, a reader with two products as two rows', async () => {
      const { header, rows } = await exportedCsv(store, {
        email: { domain: 'export.example' },
        columns: ['circulationNumber', 'product', 'copies'],
      });
      assert.deepEqual(header, ['circulationNumber', 'product', 'copies']);
      // Active now, whatever they give; Cy, with nothing active, as one row without a product.
      assert.deepEqual(rows, [
        ['C-1', 'digital', '1'],
        ['C-1', 'print-daily', '2'],
        ['C-2', 'print-weekend', '1'],
        ['C-3', '', '0'],
        ['C-4', 'digital', '1'],
      ]);
    });

    it('writes a reader a row without product or copies columns, with every attribute unless told', async () => {
      const { header, rows } = await exportedCsv(store, { email: { domain: 'export.example' } });
      assert.deepEqual(header.slice(0, 3), ['id', 'email', 'familyName']);
      assert.ok(!header.includes('product') && header.includes('internalNotes'), header.join());
      assert.equal(rows.length, 4);
    });

    it('neutralises a cell a spreadsheet would run as a formula, unless the file is for machines', async () => {
      const options = { email: { domain: 'export.example' }, circulationNumber: 'C-1', columns: ['telephone'] };
      assert.deepEqual((await exportedCsv(store, options)).rows, [["'+1 217 555 0100"]]);
      assert.deepEqual((await exportedCsv(store, { ...options, csvFor: 'machines' })).rows, [['+1 217 555 0100']]);
    });
  });
});
