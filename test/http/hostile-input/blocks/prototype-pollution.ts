/**
 * Hostile input: prototype-pollution keys. Whatever a client sends, the answer is a 4xx JSON:API error, the
 * process keeps serving, and a refused request leaves the store as it was (see ../harness.ts).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { subscriptionDocument, userDocument } from '../../../support/fixtures.js';
import { type Hostile } from '../harness.js';

export function prototypePollution(hostile: Hostile): void {
  const { refused, assertAllAt, isPolluted, postUser, postSubscription, userDocumentWith } = hostile;

  describe('prototype-pollution keys', () => {
    const pollution = '{"polluted":true,"isAdmin":true}';
    const attributeKeys: [string, string, string][] = [
      ['__proto__ as a user attribute', `"__proto__":${pollution}`, '/data/attributes/__proto__'],
      ['constructor as a user attribute', `"constructor":{"prototype":${pollution}}`, '/data/attributes/constructor'],
      ['prototype as a user attribute', `"prototype":${pollution}`, '/data/attributes/prototype'],
    ];
    for (const [what, raw, pointer] of attributeKeys) {
      it(`refuses ${what} with 422 at ${pointer} and pollutes nothing`, async () => {
        const body = JSON.stringify(userDocument()).replace('"attributes":{', `"attributes":{${raw},`);
        const errors = await refused(422, postUser(body));
        assertAllAt(errors, pointer);
        assert.equal(isPolluted(), false);
      });
    }

    const nested: [string, string, string][] = [
      ['address', '__proto__', '/data/attributes/address/__proto__'],
      ['worksFor', 'constructor', '/data/attributes/worksFor/constructor'],
      ['demographics', '__proto__', '/data/attributes/demographics/__proto__'],
      ['newsletters', '__proto__', '/data/attributes/newsletters/__proto__'],
    ];
    for (const [group, key, pointer] of nested) {
      it(`refuses ${key} inside ${group} with 422 at ${pointer} and pollutes nothing`, async () => {
        const body = JSON.stringify(userDocument({ [group]: {} })).replace(
          `"${group}":{}`,
          `"${group}":{"${key}":${pollution}}`,
        );
        const errors = await refused(422, postUser(body));
        assertAllAt(errors, pointer);
        assert.equal(isPolluted(), false);
      });
    }

    it('refuses __proto__ in user update attributes with 422 and pollutes nothing', async () => {
      const body = `{"data":{"type":"users","id":"${hostile.userId}","attributes":{"__proto__":${pollution}}}}`;
      const errors = await refused(422, () => hostile.service.client.put(`/users/${hostile.userId}`, body));
      assertAllAt(errors, '/data/attributes/__proto__');
      assert.equal(isPolluted(), false);
    });

    it('refuses __proto__ as a subscription attribute with 422 and pollutes nothing', async () => {
      const body = JSON.stringify(subscriptionDocument()).replace(
        '"attributes":{',
        `"attributes":{"__proto__":${pollution},`,
      );
      const errors = await refused(422, postSubscription(body));
      assertAllAt(errors, '/data/attributes/__proto__');
      assert.equal(isPolluted(), false);
    });

    it('refuses __proto__ in the top level of a document with 422 and pollutes nothing', async () => {
      const errors = await refused(422, postUser(userDocumentWith('top', `"__proto__":${pollution}`)));
      assertAllAt(errors, '/__proto__');
      assert.equal(isPolluted(), false);
    });

    it('refuses __proto__ in data with 422 and pollutes nothing', async () => {
      const errors = await refused(422, postUser(userDocumentWith('data', `"__proto__":${pollution}`)));
      assertAllAt(errors, '/data/__proto__');
      assert.equal(isPolluted(), false);
    });

    it('takes __proto__ inside meta, which it ignores, without polluting anything', async () => {
      const response = await hostile.service.client.post(
        '/users',
        userDocumentWith('meta', `{"__proto__":${pollution}}`),
      );
      assert.ok(response.status < 500, response.text);
      assert.equal(isPolluted(), false);
      if (response.status === 201) assert.equal(response.body.data.attributes.isAdmin, undefined);
    });
  });
}
