/**
 * Hostile input: NUL bytes and control characters in strings. Whatever a client sends, the answer is a 4xx JSON:API error, the
 * process keeps serving, and a refused request leaves the store as it was (see ../harness.ts).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createUser, subscriptionDocument, uniqueEmail, userDocument } from '../../../support/fixtures.js';
import { type Hostile } from '../harness.js';

export function controlCharacters(hostile: Hostile): void {
  const { refused, assertAllAt, assertStillServing, postUser, postSubscription } = hostile;

  describe('NUL bytes and control characters in strings', () => {
    const controls =
      Array.from({ length: 32 }, (_, i) => String.fromCharCode(i)).join('') + '\u007f\u2028\u2029\u202e\ufeff';

    it('refuses NUL in every kind of text field with 422 at its pointer, changing nothing', async () => {
      const attributes = {
        email: uniqueEmail(),
        familyName: 'Sm\u0000ith',
        internalNotes: 'notes \u0000 end',
        address: { streetAddress: '1\u0000 Main St' },
        demographics: { recommendations: ['r\u0000s'] },
        newsletters: { add: ['n\u0000l'] },
      };
      const errors = await refused(422, postUser({ data: { type: 'users', attributes } }));
      assert.deepEqual(errors.map((e) => e.source.pointer).sort(), [
        '/data/attributes/address/streetAddress',
        '/data/attributes/demographics/recommendations/0',
        '/data/attributes/familyName',
        '/data/attributes/internalNotes',
        '/data/attributes/newsletters/add/0',
      ]);
    });

    it('refuses an unpaired surrogate with 422 rather than store something else', async () => {
      const errors = await refused(422, postUser(userDocument({ givenName: 'a\ud800b' })));
      assertAllAt(errors, '/data/attributes/givenName');
    });

    it('stores every other control character in every kind of text field and returns it unchanged', async () => {
      const others = controls.replace('\u0000', '');
      const attributes = {
        email: uniqueEmail(),
        familyName: `Sm${others}ith`,
        internalNotes: `notes ${others} end`,
        circulationNumber: 'C\u0001\u001f',
        address: { streetAddress: `1${others} Main St` },
        worksFor: { legalName: 'Acme\u0007 Ltd' },
        demographics: { recommendations: ['r\u0001s', others] },
      };
      const created = await hostile.service.client.post('/users', { data: { type: 'users', attributes } });
      assert.equal(created.status, 201, created.text);
      const read = (await hostile.service.client.get(`/users/${created.body.data.id}`)).body.data.attributes;
      assert.equal(read.familyName, attributes.familyName);
      assert.equal(read.internalNotes, attributes.internalNotes);
      assert.equal(read.circulationNumber, attributes.circulationNumber);
      assert.equal(read.address.streetAddress, attributes.address.streetAddress);
      assert.equal(read.worksFor.legalName, attributes.worksFor.legalName);
      assert.deepEqual(read.demographics, attributes.demographics);
    });

    it('refuses NUL in externalIdentifier with 422', async () => {
      const errors = await refused(422, postSubscription(subscriptionDocument({ externalIdentifier: 'ext\u0000' })));
      assertAllAt(errors, '/data/attributes/externalIdentifier');
    });

    it('refuses a filter holding a NUL with 400 naming the parameter', async () => {
      const response = await hostile.service.client.get(
        `/users?filter[circulationNumber]=${encodeURIComponent('NUL\u0000tail')}`,
      );
      assert.equal(response.status, 400, response.text);
      assert.deepEqual(response.body.errors[0].source, { parameter: 'filter[circulationNumber]' });
    });

    it('refuses an email holding a NUL with 422 at /data/attributes/email', async () => {
      const errors = await refused(422, postUser(userDocument({ email: `a\u0000b${uniqueEmail()}` })));
      assertAllAt(errors, '/data/attributes/email');
    });

    for (const familyName of ['\u0000', '\u0000Smith']) {
      it(`stores familyName ${JSON.stringify(familyName)} faithfully or refuses it with 422, never a 5xx, on create`, async () => {
        const state = await hostile.service.snapshot();
        const response = await hostile.service.client.post('/users', userDocument({ familyName }));
        if (response.status === 201) {
          const read = await hostile.service.client.get(`/users/${response.body.data.id}`);
          assert.equal(read.body.data.attributes.familyName, familyName);
        } else {
          assert.equal(response.status, 422, response.text);
          assertAllAt(response.body.errors, '/data/attributes/familyName');
          assert.equal(await hostile.service.snapshot(), state);
        }
      });

      it(`stores familyName ${JSON.stringify(familyName)} faithfully or refuses it with 422, never a 5xx, on update`, async () => {
        const id = await createUser(hostile.service.client);
        const state = await hostile.service.snapshot();
        const response = await hostile.service.client.put(`/users/${id}`, {
          data: { type: 'users', id, attributes: { familyName } },
        });
        if (response.status === 204) {
          const read = await hostile.service.client.get(`/users/${id}`);
          assert.equal(read.body.data.attributes.familyName, familyName);
        } else {
          assert.equal(response.status, 422, response.text);
          assertAllAt(response.body.errors, '/data/attributes/familyName');
          assert.equal(await hostile.service.snapshot(), state);
        }
      });
    }

    it('stores a string holding a lone UTF-16 surrogate faithfully or refuses it with 422', async () => {
      const givenName = 'a\ud800b';
      const state = await hostile.service.snapshot();
      const response = await hostile.service.client.post('/users', userDocument({ givenName }));
      if (response.status === 201) {
        const read = await hostile.service.client.get(`/users/${response.body.data.id}`);
        assert.equal(read.body.data.attributes.givenName, givenName, 'the stored value differs from the one sent');
      } else {
        assert.equal(response.status, 422, response.text);
        assertAllAt(response.body.errors, '/data/attributes/givenName');
        assert.equal(await hostile.service.snapshot(), state);
      }
    });

    it('keeps serving after control characters', assertStillServing);
  });
}
