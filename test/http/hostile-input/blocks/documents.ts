/**
 * Hostile input: bodies that are not JSON:API documents. Whatever a client sends, the answer is a 4xx JSON:API error, the
 * process keeps serving, and a refused request leaves the store as it was (see ../harness.ts).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { userDocument } from '../../../support/fixtures.js';
import { MEDIA_TYPE } from '../../../support/service.js';
import { BEARER, type Hostile } from '../harness.js';

export function documents(hostile: Hostile): void {
  const { refused, assertAllAt, postUser, postSubscription } = hostile;

  describe('bodies that are not JSON:API documents', () => {
    const truncated = [
      '{"data":',
      '{"data":{"type":"users","attributes":{"email":"a@example.com"',
      '{"data":{"type":"users","attributes":{"email":"a@exam',
      '{',
    ];
    for (const body of truncated) {
      it(`refuses truncated JSON ${JSON.stringify(body)} with 400 "Problems parsing JSON"`, async () => {
        const errors = await refused(400, postUser(body));
        assert.equal(errors[0].title, 'Problems parsing JSON');
      });
    }

    const invalid = ['{bad}', "{'data': {}}", '{"data":{},}', 'NaN', '{"data": undefined}', 'users', '<data/>'];
    for (const body of invalid) {
      it(`refuses invalid JSON ${JSON.stringify(body)} with 400 "Problems parsing JSON"`, async () => {
        const errors = await refused(400, postUser(body));
        assert.equal(errors[0].title, 'Problems parsing JSON');
      });
    }

    it('does not echo a malformed body, which may hold a password', async () => {
      const errors = await refused(400, postUser('{"data":{"attributes":{"password":"hunter2-secret-words"'));
      assert.ok(!JSON.stringify(errors).includes('hunter2'), JSON.stringify(errors));
    });

    const notObjects: [string, string][] = [
      ['an empty array', '[]'],
      ['an array holding a document', JSON.stringify([userDocument()])],
      ['a string', '"users"'],
      ['a number', '42'],
      ['null', 'null'],
      ['true', 'true'],
    ];
    for (const [what, body] of notObjects) {
      it(`refuses ${what} as a body with 400 "Body must be a JSON object"`, async () => {
        const errors = await refused(400, postUser(body));
        assert.equal(errors[0].title, 'Body must be a JSON object');
      });
    }

    it('refuses an array as the body of a user update with 400 "Body must be a JSON object"', async () => {
      const errors = await refused(400, () => hostile.service.client.put(`/users/${hostile.userId}`, '[]'));
      assert.equal(errors[0].title, 'Body must be a JSON object');
    });

    it('refuses an array as the body of a subscription create with 400 "Body must be a JSON object"', async () => {
      const errors = await refused(400, postSubscription('[]'));
      assert.equal(errors[0].title, 'Body must be a JSON object');
    });

    it('refuses an empty body on POST /users with 400', async () => {
      const errors = await refused(400, postUser(''));
      assert.ok(['Body must be a JSON object', 'Problems parsing JSON'].includes(errors[0].title), errors[0].title);
    });

    it('refuses a POST /users with no body and no Content-Type with 400', async () => {
      const errors = await refused(400, () => hostile.service.client.request('POST', '/users'));
      assert.ok(['Body must be a JSON object', 'Problems parsing JSON'].includes(errors[0].title), errors[0].title);
    });

    it('refuses a body of white space on a user update with 400', async () => {
      await refused(400, () => hostile.service.client.put(`/users/${hostile.userId}`, '  \n '));
    });

    it('refuses a body that is not valid UTF-8 with 400 rather than storing replacement characters', async () => {
      const state = await hostile.service.snapshot();
      const text = JSON.stringify(userDocument({ familyName: 'AXB' }));
      const [head, tail] = text.split('X') as [string, string];
      const bytes = Buffer.concat([Buffer.from(head), Buffer.from([0xff, 0xfe, 0xc3]), Buffer.from(tail)]);
      const response = await fetch(`${hostile.service.baseUrl}/users`, {
        method: 'POST',
        headers: { 'content-type': MEDIA_TYPE, accept: MEDIA_TYPE, authorization: BEARER },
        body: bytes,
      });
      const body = await response.text();
      assert.equal(response.status, 400, body);
      assert.equal(response.headers.get('content-type'), MEDIA_TYPE);
      assert.equal(await hostile.service.snapshot(), state);
    });

    it('says once that a document without data is not a document, naming the type to send', async () => {
      const { data } = userDocument();
      const errors = await refused(422, postUser(data));
      assert.equal(errors.length, 1, JSON.stringify(errors));
      assert.equal(errors[0].code, 'DOCUMENT_WITHOUT_DATA');
      assert.deepEqual(errors[0].source, { pointer: '/data' });
      assert.match(errors[0].detail, /\{"data": \{"type": "users"/);
    });

    const wrongData: [string, unknown][] = [
      ['an array', []],
      ['a string', 'users'],
      ['null', null],
      ['a number', 1],
    ];
    for (const [what, data] of wrongData) {
      it(`refuses data that is ${what} with 422 at /data`, async () => {
        const errors = await refused(422, postUser({ data }));
        assertAllAt(errors, '/data');
      });
    }

    for (const [what, attributes] of [
      ['an array', []],
      ['a string', 'x'],
      ['null', null],
    ] as [string, unknown][]) {
      it(`refuses attributes that are ${what} with 422 at /data/attributes`, async () => {
        const errors = await refused(422, postUser({ data: { type: 'users', attributes } }));
        assertAllAt(errors, '/data/attributes');
      });
    }
  });
}
