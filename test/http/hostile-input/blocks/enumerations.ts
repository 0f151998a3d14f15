/**
 * Hostile input: enumerations. Whatever a client sends, the answer is a 4xx JSON:API error, the
 * process keeps serving, and a refused request leaves the store as it was (see ../harness.ts).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { subscriptionDocument } from '../../../support/fixtures.js';
import { type Hostile } from '../harness.js';

export function enumerations(hostile: Hostile): void {
  const { refused, assertAllAt, postSubscription, putSubscription } = hostile;

  describe('enumerations', () => {
    const enums: [string, string[], string][] = [
      ['license', ['gold', 'Individual', 'INDIVIDUAL', ' individual', 'individual ', ''], 'individual, free, site'],
      ['resource', ['web', 'Print', 'print_online', 'print online', 'online,print', ''], 'online, print, print-online'],
    ];
    for (const [name, values, allowed] of enums) {
      it(`refuses a ${name} outside its list on create with 422 naming the allowed values`, async () => {
        for (const value of values) {
          const errors = await refused(422, postSubscription(subscriptionDocument({ [name]: value })));
          assertAllAt(errors, `/data/attributes/${name}`);
          assert.equal(errors[0].detail, `must be one of: ${allowed}`);
        }
      });

      it(`refuses a ${name} outside its list on update with 422, changing nothing`, async () => {
        for (const value of values) {
          const errors = await refused(422, putSubscription({ [name]: value }));
          assertAllAt(errors, `/data/attributes/${name}`);
        }
      });
    }
  });
}
