/**
 * Hostile input: oversized input. Whatever a client sends, the answer is a 4xx JSON:API error, the
 * process keeps serving, and a refused request leaves the store as it was (see ../harness.ts).
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import { describe, it } from 'node:test';
import { subscriptionDocument, userDocument } from '../../../support/fixtures.js';
import { MEDIA_TYPE } from '../../../support/service.js';
import { BEARER, type Hostile } from '../harness.js';

export function oversized(hostile: Hostile): void {
  const { refused, assertAllAt, assertStillServing, postUser, putUser, postSubscription } = hostile;

  describe('oversized input', () => {
    // As long as a value can be within the body limit, and far longer than any attribute may be.
    const huge = 'x'.repeat(60_000);
    const tooLong = /^is too long \(maximum is \d+ characters\)$/;

    /** Fields of a user create, each with the attributes that put `value` in it. */
    const userStringFields: [string, (v: string) => Record<string, unknown>][] = [
      ...[
        'honorificPrefix',
        'givenName',
        'additionalName',
        'familyName',
        'honorificSuffix',
        'circulationNumber',
        'internalNotes',
        'jobTitle',
        'telephone',
        'cellNumber',
        'faxNumber',
        'password',
      ].map(
        (name) =>
          [`/data/attributes/${name}`, (v: string) => ({ [name]: v })] as [
            string,
            (v: string) => Record<string, unknown>,
          ],
      ),
      ['/data/attributes/email', (v) => ({ email: `${v}@example.com` })],
      ...['streetAddress', 'unitNumber', 'addressLocality', 'addressRegion', 'addressCountry', 'postalCode'].map(
        (name) =>
          [`/data/attributes/address/${name}`, (v: string) => ({ address: { [name]: v } })] as [
            string,
            (v: string) => Record<string, unknown>,
          ],
      ),
      ...['legalName', 'telephone'].map(
        (name) =>
          [`/data/attributes/worksFor/${name}`, (v: string) => ({ worksFor: { [name]: v } })] as [
            string,
            (v: string) => Record<string, unknown>,
          ],
      ),
      ['/data/attributes/demographics/recommendations/0', (v) => ({ demographics: { recommendations: [v] } })],
      ['/data/attributes/newsletters/add/0', (v) => ({ newsletters: { add: [v] } })],
    ];
    for (const [pointer, attributes] of userStringFields) {
      it(`refuses a 60,000-character value at ${pointer} with 422 "is too long"`, async () => {
        const errors = await refused(422, postUser(userDocument(attributes(huge))));
        assertAllAt(errors, pointer);
        assert.ok(
          errors.some((e) => tooLong.test(e.detail)),
          JSON.stringify(errors),
        );
      });
    }

    it('refuses a 60,000-character newsletter id to remove with 422 "is too long"', async () => {
      const errors = await refused(422, putUser({ newsletters: { remove: [huge] } }));
      assertAllAt(errors, '/data/attributes/newsletters/remove/0');
      assert.match(errors[0].detail, tooLong);
    });

    it('refuses a 60,000-character externalIdentifier with 422 "is too long"', async () => {
      const errors = await refused(422, postSubscription(subscriptionDocument({ externalIdentifier: huge })));
      assertAllAt(errors, '/data/attributes/externalIdentifier');
      assert.match(errors[0].detail, tooLong);
    });

    it('refuses a 60,000-character product id with 422', async () => {
      const document = subscriptionDocument({}, { product: { data: { type: 'products', id: huge } } });
      const errors = await refused(422, postSubscription(document));
      assertAllAt(errors, '/data/relationships/product/data/id');
    });

    it('refuses 3,000 newsletters to add at once with one 422 at /data/attributes/newsletters/add', async () => {
      const add = Array.from({ length: 3000 }, (_, i) => `n${i}`);
      const errors = await refused(422, postUser(userDocument({ newsletters: { add } })));
      assertAllAt(errors, '/data/attributes/newsletters/add');
      assert.deepEqual(
        errors.map((e) => e.detail),
        ['has too many items (maximum is 100)'],
      );
    });

    it('refuses 30,000 zeros as newsletters with one 422, not one per zero', async () => {
      const add = new Array(30_000).fill(0);
      const errors = await refused(422, postUser(userDocument({ newsletters: { add } })));
      assert.equal(errors.length, 1, JSON.stringify(errors.slice(0, 3)));
      assert.equal(errors[0].source.pointer, '/data/attributes/newsletters/add');
    });

    it('refuses an array of more than 100 items anywhere, even in meta, which it otherwise ignores', async () => {
      const document = { ...userDocument(), meta: { list: new Array(101).fill('x') } };
      const errors = await refused(422, postUser(document));
      assertAllAt(errors, '/meta/list');
    });

    it('answers a body with 3,000 unknown attributes with one error at /data/attributes', async () => {
      const extra = Object.fromEntries(Array.from({ length: 3000 }, (_, i) => [`k${i}`, i]));
      const errors = await refused(422, postUser(userDocument(extra)));
      assert.deepEqual(
        errors.map((e) => [e.source.pointer, e.detail]),
        [['/data/attributes', 'has too many members (maximum is 100)']],
      );
    });

    it('answers 100 unknown attributes with at most 50 errors', async () => {
      const extra = Object.fromEntries(Array.from({ length: 98 }, (_, i) => [`k${i}`, i]));
      const errors = await refused(422, postUser(userDocument(extra)));
      assert.ok(errors.length >= 1 && errors.length <= 50, `${errors.length} errors`);
    });

    it('refuses a JSON body over 64 KiB with 413', async () => {
      const errors = await refused(413, postUser(userDocument({ internalNotes: 'x'.repeat(64 * 1024 + 1) })));
      assert.equal(errors[0].title, 'Payload Too Large');
      assert.match(errors[0].detail, /larger than 65536 bytes/);
    });

    it('refuses a body of 520,000 zeros in newsletters (1 MiB) with 413', async () => {
      const add = new Array(520_000).fill(0);
      await refused(413, postUser(userDocument({ newsletters: { add } })));
    });

    it('refuses a chunked body over 64 KiB, sent without a Content-Length, with 413', async () => {
      const state = await hostile.service.snapshot();
      const { status, headers, body } = await new Promise<{
        status: number;
        headers: http.IncomingHttpHeaders;
        body: string;
      }>((resolve, reject) => {
        const request = http.request(
          `${hostile.service.baseUrl}/users`,
          { method: 'POST', headers: { 'content-type': MEDIA_TYPE, accept: MEDIA_TYPE, authorization: BEARER } },
          (response) => {
            let text = '';
            response.setEncoding('utf8');
            response.on('data', (chunk: string) => (text += chunk));
            response.on('end', () =>
              resolve({ status: response.statusCode ?? 0, headers: response.headers, body: text }),
            );
          },
        );
        // Just over the bound: the service answers once it has read 64 KiB and closes, and what the
        // client has not yet written then fails (EPIPE). A body that fits in loopback's socket
        // buffers is written whole before that; a failure after the answer is not the test's.
        let answered = false;
        request.on('response', () => (answered = true));
        request.on('error', (error) => answered || reject(error));
        const chunk = 'x'.repeat(40 * 1024);
        for (let i = 0; i < 2; i += 1) request.write(chunk);
        request.end();
      });
      assert.equal(status, 413, body);
      assert.equal(headers['content-type'], MEDIA_TYPE);
      assert.equal(JSON.parse(body).errors[0].status, '413');
      assert.equal(await hostile.service.snapshot(), state);
    });

    it('keeps serving after oversized bodies', assertStillServing);
  });
}
