/**
 * Hostile input: dates. Whatever a client sends, the answer is a 4xx JSON:API error, the
 * process keeps serving, and a refused request leaves the store as it was (see ../harness.ts).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { subscriptionDocument } from '../../../support/fixtures.js';
import { type Hostile } from '../harness.js';

export function dates(hostile: Hostile): void {
  const { refused, assertAllAt, postSubscription, putSubscription } = hostile;

  describe('dates', () => {
    const invalid: [string, string][] = [
      ['without a UTC offset', '2025-01-01T00:00:00'],
      ['on 30 February', '2025-02-30T00:00:00+00:00'],
      ['on 29 February of a common year', '2025-02-29T00:00:00+00:00'],
      ['that is garbage', 'garbage'],
      ['without a time', '2025-01-01'],
      ['in month 13', '2025-13-01T00:00:00+00:00'],
      ['at hour 24', '2025-01-01T24:00:00+00:00'],
      ['with a space for T', '2025-01-01 00:00:00+00:00'],
      ['with an offset of 24 hours', '2025-01-01T00:00:00+24:00'],
      ['with an offset without a colon', '2025-01-01T00:00:00+0000'],
      ['that is empty', ''],
      ['that is epoch seconds', '1735689600'],
      ['with a trailing newline', '2025-01-01T00:00:00+00:00\n'],
      ['with a six-digit year', '+002025-01-01T00:00:00+00:00'],
    ];
    for (const name of ['dateStarted', 'dateEnded']) {
      for (const [what, value] of invalid) {
        it(`refuses a ${name} ${what} (${JSON.stringify(value)}) with 422 at /data/attributes/${name}`, async () => {
          const errors = await refused(422, postSubscription(subscriptionDocument({ [name]: value })));
          assertAllAt(errors, `/data/attributes/${name}`);
        });
      }
    }

    it('refuses every invalid dateStarted on update with 422, changing nothing', async () => {
      for (const [, value] of invalid) {
        const errors = await refused(422, putSubscription({ dateStarted: value }));
        assertAllAt(errors, '/data/attributes/dateStarted');
      }
    });

    it('refuses a dateEnded before dateStarted on create with 422 at dateEnded', async () => {
      const document = subscriptionDocument({
        dateStarted: '2025-06-02T00:00:00+00:00',
        dateEnded: '2025-06-01T23:59:59+00:00',
      });
      const errors = await refused(422, postSubscription(document));
      assertAllAt(errors, '/data/attributes/dateEnded');
    });

    it('compares instants, not text: a dateEnded that reads later but is earlier is refused', async () => {
      // 00:00 at -05:00 is 05:00 UTC; 03:00 UTC is two hours before it.
      const document = subscriptionDocument({
        dateStarted: '2025-06-01T00:00:00-05:00',
        dateEnded: '2025-06-01T03:00:00+00:00',
      });
      const errors = await refused(422, postSubscription(document));
      assertAllAt(errors, '/data/attributes/dateEnded');
    });

    it('refuses an update whose dateEnded falls before the stored dateStarted, changing nothing', async () => {
      const errors = await refused(422, putSubscription({ dateEnded: '2024-12-31T23:59:59+00:00' }));
      assertAllAt(errors, '/data/attributes/dateEnded');
    });

    it('refuses an update whose dateStarted falls after the stored dateEnded, changing nothing', async () => {
      const errors = await refused(422, putSubscription({ dateStarted: '2026-01-01T00:00:01+00:00' }));
      for (const error of errors) {
        assert.ok(
          ['/data/attributes/dateStarted', '/data/attributes/dateEnded'].includes(error.source.pointer),
          JSON.stringify(error),
        );
      }
    });
  });
}
