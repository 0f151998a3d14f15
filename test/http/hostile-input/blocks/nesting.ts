/**
 * Hostile input: deeply nested JSON. Whatever a client sends, the answer is a 4xx JSON:API error, the
 * process keeps serving, and a refused request leaves the store as it was (see ../harness.ts).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { userDocument } from '../../../support/fixtures.js';
import { type Hostile } from '../harness.js';

export function nesting(hostile: Hostile): void {
  const { refused, assertAllAt, assertStillServing, postUser, userDocumentWith } = hostile;

  describe('deeply nested JSON', () => {
    const depth = 10_000;
    const deepObject = '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
    const deepArray = '['.repeat(depth) + ']'.repeat(depth);

    it('refuses 10,000 levels of objects inside an attribute with 422 under that attribute', async () => {
      const errors = await refused(422, postUser(userDocumentWith('attribute', deepObject)));
      for (const error of errors) assert.match(error.source.pointer, /^\/data\/attributes\/demographics(\/|$)/);
    });

    it('refuses 10,000 levels of arrays inside an attribute with 422 under that attribute', async () => {
      const errors = await refused(422, postUser(userDocumentWith('attribute', deepArray)));
      for (const error of errors) assert.match(error.source.pointer, /^\/data\/attributes\/demographics(\/|$)/);
    });

    it('refuses 10,000 levels of objects as an unknown attribute with 422 naming it', async () => {
      const body = JSON.stringify({
        data: { type: 'users', attributes: { ...userDocument().data.attributes, deep: 'HOLE' } },
      });
      const errors = await refused(422, postUser(body.replace('"HOLE"', deepObject)));
      assertAllAt(errors, '/data/attributes/deep');
    });

    it('refuses 10,000 levels of objects at the top level with a 4xx', async () => {
      await refused('4xx', postUser(deepObject));
    });

    it('refuses 10,000 levels of arrays at the top level with 400 "Body must be a JSON object"', async () => {
      const errors = await refused(400, postUser(deepArray));
      assert.equal(errors[0].title, 'Body must be a JSON object');
    });

    it('refuses 500,000 levels of arrays (just under 1 MiB) with a 4xx', async () => {
      await refused('4xx', postUser('['.repeat(500_000) + ']'.repeat(500_000)));
    });

    it('refuses 32,000 levels of arrays (just under the body limit) with 400', async () => {
      await refused(400, postUser('['.repeat(32_000) + ']'.repeat(32_000)));
    });

    it('refuses 10,000 levels of objects inside meta at the body limit without a 5xx', async () => {
      const deep = '{"a":'.repeat(12_000) + '1' + '}'.repeat(12_000);
      await refused('4xx', postUser(`{"data":{"type":"users","attributes":{}},"meta":${deep}}`));
    });

    it('takes 10,000 levels of nesting inside meta, which it ignores, without a 5xx', async () => {
      const response = await hostile.service.client.post('/users', userDocumentWith('meta', deepObject));
      assert.ok(response.status < 500, response.text);
    });

    it('keeps serving after deeply nested bodies', assertStillServing);
  });
}
