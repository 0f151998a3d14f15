/**
 * The console's sign-in is the one password check anyone may ask for without a credential. A
 * flood of it from one address is refused beyond the few checked at once, before it costs a
 * hash, and a reader signing in through the website (a credentialed request) goes ahead of
 * those being checked: it answers as it would on a quiet day, within the target of 2 s.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createReader, signIn } from '../../support/readers.js';
import { startService, type Service } from '../../support/service.js';
import { staffSignIn } from '../../support/staff.js';
import { forEachStore } from '../../support/stores.js';

const FLOOD = 200;
const TARGET_MS = 2_000;

forEachStore((kind) => {
  describe('a flood of console sign-ins with unknown emails from one address', () => {
    let service: Service;
    before(async () => {
      service = await startService(kind);
    });
    after(() => service.close());

    it('lets a reader sign in through the website within 2 s, and refuses the flood beyond its budget with 429', async () => {
      const reader = await createReader(service.client);
      const flood = Array.from({ length: FLOOD }, (_, i) =>
        staffSignIn(service.client, `flood-${i}-${kind.toLowerCase()}@staff.example.com`, 'a wrong password'),
      );
      const started = performance.now();
      const signedIn = await signIn(service.client, reader.email, reader.password);
      const took = performance.now() - started;
      const answers = await Promise.all(flood);
      assert.equal(signedIn.status, 201, signedIn.text);
      assert.ok(took < TARGET_MS, `the reader's sign-in took ${Math.round(took)} ms under the flood`);
      const codes = answers.map((answer) => (answer.status === 422 ? 'checked' : answer.body?.errors?.[0]?.code));
      const refused = answers.filter((answer) => answer.body?.errors?.[0]?.code === 'STAFF_SIGN_INS_FROM_NETWORK');
      assert.ok(refused.length > FLOOD / 2, `only ${refused.length} of the flood refused: ${[...new Set(codes)]}`);
      for (const answer of refused) {
        assert.equal(answer.status, 429);
        assert.equal(answer.headers.get('retry-after'), '1');
      }
      assert.deepEqual(
        codes.filter((code) => !['checked', 'STAFF_SIGN_INS_FROM_NETWORK', 'RATE_LIMITED'].includes(code)),
        [],
      );
    });
  });
});
