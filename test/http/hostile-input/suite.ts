/**
 * Hostile and malformed input: whatever a client sends, the answer is a 4xx JSON:API error
 * (never a 5xx), the process keeps serving, and a refused request leaves the store exactly as
 * it was. The store is compared row for row, through a second read-only connection to the
 * service's SQLite file, before and after every refused write.
 *
 * The suite runs twice: against the service in the test's own process (documents.test.ts), where
 * prototype pollution would show, and against a service process of its own
 * (test/process/hostile-input.test.ts), whose resident memory is sampled throughout and whose
 * event loop is timed on every refused request: none may raise the memory by more than 20 MB or
 * block the loop for more than 50 ms.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import {
  createSubscription,
  createUser,
  subscriptionDocument,
  uniqueEmail,
  userDocument,
} from '../../support/fixtures.js';
import { loopBlockedMs, ResidentMemory } from '../../support/footprint.js';
import { MEDIA_TYPE, TEST_ADMIN_KEY, type Response, type Service } from '../../support/service.js';
import { forEachStore, type StoreKind } from '../../support/stores.js';

const BEARER = `Bearer ${TEST_ADMIN_KEY}`;
/** The most a request may raise the service's resident memory, and block its event loop. */
const MEMORY_BUDGET_MB = 20;
const LOOP_BUDGET_MS = 50;

/** The service the suite runs against; with a pid, a process of its own, whose footprint is watched. */
export type HostileTarget = Pick<Service, 'client' | 'baseUrl' | 'sql' | 'snapshot' | 'close'> & { pid?: number };

/**
 * The suite against the service `start` gives; with `footprint`, the service is a process of its
 * own (a pid) whose memory and event loop are watched throughout.
 */
export function hostileInputSuite(
  start: (kind: StoreKind) => Promise<HostileTarget>,
  options: { footprint: boolean },
): void {
  forEachStore((kind) => {
    let service: HostileTarget;
    let userId: string;
    let subscriptionId: string;
    let memory: ResidentMemory | undefined;
    /** The longest any refused request blocked the service's event loop, and which. */
    let worstBlock = { ms: 0, request: '' };

    before(async () => {
      service = await start(kind);
      userId = await createUser(service.client, {
        givenName: 'Seeded',
        circulationNumber: 'C-1',
        address: { postalCode: '12345', addressCountry: 'GB' },
        newsletters: { add: ['daily'] },
      });
      subscriptionId = await createSubscription(service.client, userId, {
        dateStarted: '2025-01-01T00:00:00+00:00',
        dateEnded: '2026-01-01T00:00:00+00:00',
      });
      if (options.footprint) {
        assert.ok(service.pid !== undefined, 'the service has no process of its own to watch');
        // Ordinary traffic first, so that the heap has grown to its working size before the baseline.
        for (let i = 0; i < 100; i += 1) {
          await createUser(service.client, { newsletters: { add: ['daily'] } });
          await service.client.get('/users?page[size]=100');
        }
        memory = new ResidentMemory(service.pid);
      }
    });
    after(async () => {
      memory?.stop();
      await service.close();
    });

    /**
     * Sends a refused request, and when the service runs in a process of its own, how long it
     * blocked the service's event loop. A refused request changes nothing, so one that seems to
     * block too long is sent again: a stall the machine caused does not repeat, one the request
     * causes does.
     */
    async function timed(send: () => Promise<Response>): Promise<Response> {
      if (!memory) return send();
      await loopBlockedMs(service.client);
      const response = await send();
      let blocked = await loopBlockedMs(service.client);
      for (let attempt = 1; attempt < 5 && blocked > LOOP_BUDGET_MS; attempt += 1) {
        await send();
        blocked = Math.min(blocked, await loopBlockedMs(service.client));
      }
      if (blocked > worstBlock.ms) worstBlock = { ms: blocked, request: response.text.slice(0, 200) };
      return response;
    }

    /**
     * Sends a request that must be refused: asserts the status (exact, or any 4xx), a JSON:API
     * error document, and a store unchanged by the request. Answers the errors.
     */
    async function refused(status: number | '4xx', send: () => Promise<Response>): Promise<any[]> {
      const state = await service.snapshot();
      const response = await timed(send);
      if (status === '4xx') {
        assert.ok(
          response.status >= 400 && response.status < 500,
          `expected a 4xx, got ${response.status}: ${response.text}`,
        );
      } else {
        assert.equal(response.status, status, response.text);
      }
      assert.ok(Array.isArray(response.body?.errors) && response.body.errors.length > 0, response.text);
      for (const error of response.body.errors) assert.equal(error.status, String(response.status), response.text);
      assert.equal(await service.snapshot(), state, 'a refused request changed the store');
      return response.body.errors;
    }

    /** Asserts a 422 whose every error points at `pointer`. */
    function assertAllAt(errors: any[], pointer: string): void {
      for (const error of errors) assert.equal(error.source?.pointer, pointer, JSON.stringify(errors));
    }

    async function assertStillServing(): Promise<void> {
      const response = await service.client.get(`/users/${userId}`);
      assert.equal(response.status, 200, response.text);
      assert.equal(response.body.data.id, userId);
    }

    function isPolluted(): boolean {
      return (
        ['polluted', 'isAdmin'].some((key) => Object.prototype.hasOwnProperty.call(Object.prototype, key)) ||
        ({} as Record<string, unknown>).polluted !== undefined
      );
    }

    const postUser = (body: unknown) => () => service.client.post('/users', body);
    const putUser = (attributes: unknown) => () =>
      service.client.put(`/users/${userId}`, { data: { type: 'users', id: userId, attributes } });
    const postSubscription = (body: unknown) => () => service.client.post(`/users/${userId}/subscriptions`, body);
    const putSubscription = (attributes: unknown, relationships?: unknown) => () =>
      service.client.put(`/users/${userId}/subscriptions/${subscriptionId}`, {
        data: {
          type: 'subscriptions',
          id: subscriptionId,
          attributes,
          ...(relationships === undefined ? {} : { relationships }),
        },
      });

    /** A valid user document as text with `"HOLE"` replaced by raw JSON text. */
    function userDocumentWith(placeholderPath: 'attribute' | 'top' | 'data' | 'meta', raw: string): string {
      const base = userDocument().data.attributes;
      switch (placeholderPath) {
        case 'attribute':
          return JSON.stringify({ data: { type: 'users', attributes: { ...base, demographics: 'HOLE' } } }).replace(
            '"HOLE"',
            raw,
          );
        case 'top':
          return `{${raw},"data":${JSON.stringify({ type: 'users', attributes: base })}}`;
        case 'data':
          return `{"data":{${raw},"type":"users","attributes":${JSON.stringify(base)}}}`;
        case 'meta':
          return JSON.stringify({ data: { type: 'users', attributes: base }, meta: 'HOLE' }).replace('"HOLE"', raw);
      }
    }

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
        const errors = await refused(400, () => service.client.put(`/users/${userId}`, '[]'));
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
        const errors = await refused(400, () => service.client.request('POST', '/users'));
        assert.ok(['Body must be a JSON object', 'Problems parsing JSON'].includes(errors[0].title), errors[0].title);
      });

      it('refuses a body of white space on a user update with 400', async () => {
        await refused(400, () => service.client.put(`/users/${userId}`, '  \n '));
      });

      it('refuses a body that is not valid UTF-8 with 400 rather than storing replacement characters', async () => {
        const state = await service.snapshot();
        const text = JSON.stringify(userDocument({ familyName: 'AXB' }));
        const [head, tail] = text.split('X') as [string, string];
        const bytes = Buffer.concat([Buffer.from(head), Buffer.from([0xff, 0xfe, 0xc3]), Buffer.from(tail)]);
        const response = await fetch(`${service.baseUrl}/users`, {
          method: 'POST',
          headers: { 'content-type': MEDIA_TYPE, accept: MEDIA_TYPE, authorization: BEARER },
          body: bytes,
        });
        const body = await response.text();
        assert.equal(response.status, 400, body);
        assert.equal(response.headers.get('content-type'), MEDIA_TYPE);
        assert.equal(await service.snapshot(), state);
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
        const response = await service.client.post('/users', userDocumentWith('meta', deepObject));
        assert.ok(response.status < 500, response.text);
      });

      it('keeps serving after deeply nested bodies', assertStillServing);
    });

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
        const created = await service.client.post('/users', { data: { type: 'users', attributes } });
        assert.equal(created.status, 201, created.text);
        const read = (await service.client.get(`/users/${created.body.data.id}`)).body.data.attributes;
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
        const response = await service.client.get(
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
          const state = await service.snapshot();
          const response = await service.client.post('/users', userDocument({ familyName }));
          if (response.status === 201) {
            const read = await service.client.get(`/users/${response.body.data.id}`);
            assert.equal(read.body.data.attributes.familyName, familyName);
          } else {
            assert.equal(response.status, 422, response.text);
            assertAllAt(response.body.errors, '/data/attributes/familyName');
            assert.equal(await service.snapshot(), state);
          }
        });

        it(`stores familyName ${JSON.stringify(familyName)} faithfully or refuses it with 422, never a 5xx, on update`, async () => {
          const id = await createUser(service.client);
          const state = await service.snapshot();
          const response = await service.client.put(`/users/${id}`, {
            data: { type: 'users', id, attributes: { familyName } },
          });
          if (response.status === 204) {
            const read = await service.client.get(`/users/${id}`);
            assert.equal(read.body.data.attributes.familyName, familyName);
          } else {
            assert.equal(response.status, 422, response.text);
            assertAllAt(response.body.errors, '/data/attributes/familyName');
            assert.equal(await service.snapshot(), state);
          }
        });
      }

      it('stores a string holding a lone UTF-16 surrogate faithfully or refuses it with 422', async () => {
        const givenName = 'a\ud800b';
        const state = await service.snapshot();
        const response = await service.client.post('/users', userDocument({ givenName }));
        if (response.status === 201) {
          const read = await service.client.get(`/users/${response.body.data.id}`);
          assert.equal(read.body.data.attributes.givenName, givenName, 'the stored value differs from the one sent');
        } else {
          assert.equal(response.status, 422, response.text);
          assertAllAt(response.body.errors, '/data/attributes/givenName');
          assert.equal(await service.snapshot(), state);
        }
      });

      it('keeps serving after control characters', assertStillServing);
    });

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
        const state = await service.snapshot();
        const { status, headers, body } = await new Promise<{
          status: number;
          headers: http.IncomingHttpHeaders;
          body: string;
        }>((resolve, reject) => {
          const request = http.request(
            `${service.baseUrl}/users`,
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
          request.on('error', reject);
          const chunk = 'x'.repeat(64 * 1024);
          for (let i = 0; i < 20; i += 1) request.write(chunk);
          request.end();
        });
        assert.equal(status, 413, body);
        assert.equal(headers['content-type'], MEDIA_TYPE);
        assert.equal(JSON.parse(body).errors[0].status, '413');
        assert.equal(await service.snapshot(), state);
      });

      it('keeps serving after oversized bodies', assertStillServing);
    });

    /** One HTTP/1.1 exchange over a raw socket, for framing that no HTTP client will send. */
    function exchange(requestText: string): Promise<{ status: number; headers: Map<string, string>; body: string }> {
      return new Promise((resolve, reject) => {
        const socket = net.connect(Number(new URL(service.baseUrl).port), '127.0.0.1');
        let received = '';
        let settled = false;
        const timer = setTimeout(
          () => finish(new Error(`no complete answer within 5 s; received ${JSON.stringify(received)}`)),
          5000,
        );
        function parse() {
          const end = received.indexOf('\r\n\r\n');
          if (end === -1) return undefined;
          const [statusLine = '', ...lines] = received.slice(0, end).split('\r\n');
          const headers = new Map<string, string>();
          for (const line of lines) {
            const colon = line.indexOf(':');
            headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
          }
          const body = received.slice(end + 4);
          const length = Number(headers.get('content-length') ?? NaN);
          if (Number.isFinite(length) && Buffer.byteLength(body) < length) return undefined;
          return { status: Number(statusLine.split(' ')[1]), headers, body };
        }
        function finish(error?: Error) {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          socket.destroy();
          const parsed = parse();
          if (parsed) resolve(parsed);
          else reject(error ?? new Error(`no answer; received ${JSON.stringify(received)}`));
        }
        socket.setEncoding('utf8');
        socket.on('data', (chunk: string) => {
          received += chunk;
          if (parse()) finish();
        });
        socket.on('close', () => finish());
        socket.on('error', (error) => finish(error));
        socket.end(requestText);
      });
    }

    describe('malformed HTTP framing', () => {
      const body = () => JSON.stringify(userDocument());
      const framings: [string, (b: string) => string][] = [
        ['a Content-Length that is not a number', (b) => `Content-Length: abc\r\n\r\n${b}`],
        ['a negative Content-Length', (b) => `Content-Length: -1\r\n\r\n${b}`],
        [
          'two different Content-Lengths',
          (b) => `Content-Length: ${b.length}\r\nContent-Length: ${b.length + 1}\r\n\r\n${b}`,
        ],
        ['a Content-Length larger than the body sent', (b) => `Content-Length: ${b.length + 500}\r\n\r\n${b}`],
      ];
      for (const [what, framing] of framings) {
        it(`answers ${what} with a 400 JSON:API error and stores nothing`, async () => {
          const state = await service.snapshot();
          const response = await exchange(
            `POST /users HTTP/1.1\r\nHost: localhost\r\nAuthorization: ${BEARER}\r\nAccept: ${MEDIA_TYPE}\r\nContent-Type: ${MEDIA_TYPE}\r\n${framing(body())}`,
          );
          assert.equal(response.status, 400, response.body);
          assert.equal(
            response.headers.get('content-type'),
            MEDIA_TYPE,
            `content type of ${JSON.stringify(response.body)}`,
          );
          assert.equal(JSON.parse(response.body).errors[0].status, '400');
          assert.equal(await service.snapshot(), state);
        });
      }

      it('refuses a Content-Length over the body limit with 413 before the body arrives', async () => {
        const state = await service.snapshot();
        const response = await exchange(
          `POST /users HTTP/1.1\r\nHost: localhost\r\nAuthorization: ${BEARER}\r\nContent-Type: ${MEDIA_TYPE}\r\nContent-Length: 99999999999\r\n\r\n{}`,
        );
        assert.equal(response.status, 413, response.body);
        assert.equal(response.headers.get('content-type'), MEDIA_TYPE);
        assert.equal(await service.snapshot(), state);
      });

      it('keeps serving after malformed framing', assertStillServing);
    });

    describe('hostile paths', () => {
      it('answers a 300-digit user id with a 4xx JSON:API error', async () => {
        const response = await service.client.get(`/users/${'1'.repeat(300)}`);
        assert.ok(response.status >= 400 && response.status < 500, response.text);
        assert.equal(response.body.errors[0].status, String(response.status));
      });

      it('answers a 300-character user id under subscriptions with a 4xx JSON:API error', async () => {
        const response = await service.client.get(`/users/${'x'.repeat(300)}/subscriptions`);
        assert.ok(response.status >= 400 && response.status < 500, response.text);
        assert.equal(response.body.errors[0].status, String(response.status));
      });

      it('answers a broken percent-encoding in the path with a 400 JSON:API error', async () => {
        const response = await service.client.get('/users/%E0%A4%A');
        assert.equal(response.status, 400, response.text);
        assert.equal(response.body.errors[0].status, '400');
      });

      for (const id of ['%00', '1%2F2', '1;DROP%20TABLE%20users', "1'%20OR%20'1'='1", '-1', '0x10']) {
        it(`answers user id ${JSON.stringify(id)} with 404`, async () => {
          const response = await service.client.get(`/users/${id}`);
          assert.equal(response.status, 404, response.text);
        });
      }

      it('keeps serving after hostile paths', assertStillServing);
    });

    type Case = { pointer: string; attributes: (value: unknown) => Record<string, unknown>; wrong: unknown[] };

    const NOT_STRING = [42, 1.5, true, [], ['x'], {}];
    const NOT_OBJECT = ['x', 42, true, [], ['x']];
    const NOT_ARRAY = ['x', 42, true, {}];
    const NOT_STRING_ITEM = [42, true, null, [], {}];

    const attribute = (name: string, wrong: unknown[]): Case => ({
      pointer: `/data/attributes/${name}`,
      attributes: (value) => ({ [name]: value }),
      wrong,
    });
    const member = (group: string, name: string, wrong: unknown[]): Case => ({
      pointer: `/data/attributes/${group}/${name}`,
      attributes: (value) => ({ [group]: { [name]: value } }),
      wrong,
    });

    const userCases: Case[] = [
      attribute('email', [...NOT_STRING, null]),
      attribute('password', [...NOT_STRING, null]),
      attribute('familyName', [...NOT_STRING, null]),
      ...[
        'honorificPrefix',
        'givenName',
        'additionalName',
        'honorificSuffix',
        'circulationNumber',
        'internalNotes',
        'jobTitle',
        'telephone',
        'cellNumber',
        'faxNumber',
      ].map((name) => attribute(name, NOT_STRING)),
      attribute('address', NOT_OBJECT),
      ...['streetAddress', 'unitNumber', 'addressLocality', 'addressRegion', 'addressCountry', 'postalCode'].map(
        (name) => member('address', name, NOT_STRING),
      ),
      attribute('worksFor', NOT_OBJECT),
      ...['legalName', 'telephone'].map((name) => member('worksFor', name, NOT_STRING)),
      attribute('demographics', NOT_OBJECT),
      member('demographics', 'recommendations', [...NOT_ARRAY, null]),
      {
        pointer: '/data/attributes/demographics/recommendations/0',
        attributes: (value) => ({ demographics: { recommendations: [value] } }),
        wrong: NOT_STRING_ITEM,
      },
      attribute('newsletters', [...NOT_OBJECT, null]),
      member('newsletters', 'add', [...NOT_ARRAY, null]),
      member('newsletters', 'remove', [...NOT_ARRAY, null]),
      {
        pointer: '/data/attributes/newsletters/add/0',
        attributes: (value) => ({ newsletters: { add: [value] } }),
        wrong: [...NOT_STRING_ITEM, ''],
      },
      {
        pointer: '/data/attributes/newsletters/remove/0',
        attributes: (value) => ({ newsletters: { remove: [value] } }),
        wrong: [...NOT_STRING_ITEM, ''],
      },
    ];

    describe('wrong JSON types in user attributes', () => {
      for (const { pointer, attributes, wrong } of userCases) {
        it(`refuses a wrong type at ${pointer} on create with 422 there, storing nothing`, async () => {
          for (const value of wrong) {
            const errors = await refused(422, postUser(userDocument(attributes(value))));
            assertAllAt(errors, pointer);
          }
        });

        it(`refuses a wrong type at ${pointer} on update with 422 there, changing nothing`, async () => {
          for (const value of wrong) {
            const errors = await refused(422, putUser(attributes(value)));
            assertAllAt(errors, pointer);
          }
        });
      }
    });

    const subscriptionCases: Case[] = [
      attribute('dateStarted', [...NOT_STRING, null]),
      attribute('dateEnded', NOT_STRING),
      attribute('externalIdentifier', NOT_STRING),
      attribute('license', NOT_STRING),
      attribute('resource', NOT_STRING),
      attribute('trial', ['true', 'false', 1, 0, null, [], {}]),
    ];

    describe('wrong JSON types in subscription attributes', () => {
      for (const { pointer, attributes, wrong } of subscriptionCases) {
        it(`refuses a wrong type at ${pointer} on create with 422 there, storing nothing`, async () => {
          for (const value of wrong) {
            const errors = await refused(422, postSubscription(subscriptionDocument(attributes(value))));
            assertAllAt(errors, pointer);
          }
        });

        it(`refuses a wrong type at ${pointer} on update with 422 there, changing nothing`, async () => {
          for (const value of wrong) {
            const errors = await refused(422, putSubscription(attributes(value)));
            assertAllAt(errors, pointer);
          }
        });
      }

      it('refuses a product id that is not a string with 422 at /data/relationships/product/data/id', async () => {
        for (const id of [5, true, null, [], {}]) {
          const document = subscriptionDocument({}, { product: { data: { type: 'products', id } } });
          const errors = await refused(422, postSubscription(document));
          assertAllAt(errors, '/data/relationships/product/data/id');
        }
      });
    });

    describe('enumerations', () => {
      const enums: [string, string[], string][] = [
        ['license', ['gold', 'Individual', 'INDIVIDUAL', ' individual', 'individual ', ''], 'individual, free, site'],
        [
          'resource',
          ['web', 'Print', 'print_online', 'print online', 'online,print', ''],
          'online, print, print-online',
        ],
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

    describe('SQL metacharacters in filters', () => {
      const filters: [string, string][] = [
        ['filter[email]', "' OR 1=1 --"],
        ['filter[email]', "x@example.com' OR '1'='1"],
        ['filter[email]', '" OR ""="'],
        ['filter[circulationNumber]', "%' ;DROP TABLE users;--"],
        ['filter[circulationNumber]', "C-1' OR 'a'='a"],
        ['filter[circulationNumber]', '%'],
        ['filter[circulationNumber]', 'C_1'],
      ];
      for (const [parameter, value] of filters) {
        it(`treats ${parameter}=${value} as plain text: 200, no matches, store unchanged`, async () => {
          const state = await service.snapshot();
          const response = await service.client.get(`/users?${parameter}=${encodeURIComponent(value)}`);
          assert.equal(response.status, 200, response.text);
          assert.deepEqual(response.body.data, []);
          assert.equal(await service.snapshot(), state);
        });
      }

      it("takes filter[email]=' OR 1=1 -- unencoded in the address as plain text too", async () => {
        const response = await service.client.get("/users?filter[email]=' OR 1=1 --");
        assert.equal(response.status, 200, response.text);
        assert.deepEqual(response.body.data, []);
      });

      it('still has the users table and its rows after the filters above', async () => {
        const [count] = await service.sql('SELECT count(*) AS n FROM users');
        assert.ok(Number(count?.n) >= 1);
        const response = await service.client.get('/users?filter[circulationNumber]=C-1');
        assert.deepEqual(
          response.body.data.map((u: { id: string }) => u.id),
          [userId],
        );
      });
    });

    describe('query parameters', () => {
      function assertBadParameter(response: Response, parameter: string): void {
        assert.equal(response.status, 400, response.text);
        assert.equal(response.body.errors.length, 1, response.text);
        assert.equal(response.body.errors[0].source?.parameter, parameter, response.text);
      }

      for (const parameter of [
        'foo',
        'filter[name]',
        'filter[password]',
        'filter[id]',
        'filter',
        'sort',
        'include',
        'fields[users]',
        'page[offset]',
      ]) {
        it(`refuses the unsupported parameter ${parameter} on GET /users with 400 naming it`, async () => {
          assertBadParameter(await service.client.get(`/users?${parameter}=1`), parameter);
        });
      }

      const otherRoutes: [string, () => Promise<string>][] = [
        ['GET /users/{id}', async () => `/users/${userId}`],
        ['GET /users/{id}/subscriptions', async () => `/users/${userId}/subscriptions`],
        ['GET /users/{id}/subscriptions/{id}', async () => `/users/${userId}/subscriptions/${subscriptionId}`],
      ];
      for (const [route, path] of otherRoutes) {
        it(`refuses the unsupported parameter foo on ${route} with 400 naming it`, async () => {
          assertBadParameter(await service.client.get(`${await path()}?foo=1`), 'foo');
        });
      }

      it('refuses the unsupported parameter foo on POST /users with 400, creating nothing', async () => {
        const errors = await refused(400, () => service.client.post('/users?foo=1', userDocument()));
        assert.equal(errors[0].source?.parameter, 'foo');
      });

      it('refuses the unsupported parameter foo on PUT /users/{id} with 400, changing nothing', async () => {
        const errors = await refused(400, () =>
          service.client.put(`/users/${userId}?foo=1`, {
            data: { type: 'users', id: userId, attributes: { givenName: 'Foo' } },
          }),
        );
        assert.equal(errors[0].source?.parameter, 'foo');
      });

      it('refuses the unsupported parameter foo on DELETE of a subscription with 400, deleting nothing', async () => {
        const id = await createSubscription(service.client, userId);
        const errors = await refused(400, () => service.client.delete(`/users/${userId}/subscriptions/${id}?foo=1`));
        assert.equal(errors[0].source?.parameter, 'foo');
      });

      it('refuses a __proto__ query parameter with 400 and pollutes nothing', async () => {
        assertBadParameter(await service.client.get('/users?__proto__[polluted]=1'), '__proto__[polluted]');
        assert.equal(isPolluted(), false);
      });

      const repeated: [string, string][] = [
        ['page[number]', 'page[number]=1&page[number]=2'],
        ['page[number]', 'page[number]=1&page[number]=1'],
        ['page[size]', 'page[size]=10&page[size]=20'],
        ['filter[email]', 'filter[email]=a@example.com&filter[email]=b@example.com'],
        ['filter[circulationNumber]', 'filter[circulationNumber]=C-1&filter[circulationNumber]=C-2'],
      ];
      for (const [parameter, query] of repeated) {
        it(`refuses a repeated ${parameter} (${query}) with 400 naming it`, async () => {
          assertBadParameter(await service.client.get(`/users?${query}`), parameter);
        });
      }

      it('refuses page and page[number] that disagree with 400', async () => {
        const response = await service.client.get('/users?page=2&page[number]=3');
        assert.equal(response.status, 400, response.text);
        assert.ok(['page', 'page[number]'].includes(response.body.errors[0].source?.parameter));
      });

      const badPages: [string, string][] = [
        ['page[number]', '0'],
        ['page[number]', '-1'],
        ['page[number]', 'abc'],
        ['page[number]', ''],
        ['page[number]', '1.5'],
        ['page[number]', '99999999999999999999'],
        ['page', '0'],
        ['page', 'abc'],
        ['page[size]', '101'],
        ['page[size]', '0'],
        ['page[size]', '-5'],
        ['page[size]', 'abc'],
      ];
      for (const [parameter, value] of badPages) {
        it(`refuses ${parameter}=${value} with 400 naming ${parameter}`, async () => {
          assertBadParameter(await service.client.get(`/users?${parameter}=${encodeURIComponent(value)}`), parameter);
        });
      }

      it('accepts only plain decimal digits as a page number, not 1e3, 0x10 or +1', async () => {
        for (const value of ['1e3', '0x10', '+1']) {
          assertBadParameter(
            await service.client.get(`/users?page[number]=${encodeURIComponent(value)}`),
            'page[number]',
          );
        }
      });

      it('refuses an empty filter[email] with 400 naming it', async () => {
        assertBadParameter(await service.client.get('/users?filter[email]='), 'filter[email]');
      });

      it('refuses a filter[email] longer than an address can be with 400 naming it', async () => {
        assertBadParameter(await service.client.get(`/users?filter[email]=${'a'.repeat(300)}`), 'filter[email]');
      });
    });

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
        const body = `{"data":{"type":"users","id":"${userId}","attributes":{"__proto__":${pollution}}}}`;
        const errors = await refused(422, () => service.client.put(`/users/${userId}`, body));
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
        const response = await service.client.post('/users', userDocumentWith('meta', `{"__proto__":${pollution}}`));
        assert.ok(response.status < 500, response.text);
        assert.equal(isPolluted(), false);
        if (response.status === 201) assert.equal(response.body.data.attributes.isAdmin, undefined);
      });
    });

    describe('after all of the hostile input above', () => {
      it('still serves reads and writes', async () => {
        await assertStillServing();
        const id = await createUser(service.client, { givenName: 'After' });
        const read = await service.client.get(`/users/${id}`);
        assert.equal(read.body.data.attributes.givenName, 'After');
      });

      if (!options.footprint) return;
      it(`raised the service's resident memory by at most ${MEMORY_BUDGET_MB} MB, and blocked its loop at most ${LOOP_BUDGET_MS} ms`, (t) => {
        assert.ok(memory, 'the service has no process of its own to watch');
        const rise = memory.riseMb();
        t.diagnostic(
          `memory rose ${rise.toFixed(1)} MB; the longest block ${worstBlock.ms.toFixed(1)} ms: ${worstBlock.request}`,
        );
        assert.ok(rise <= MEMORY_BUDGET_MB, `the resident memory rose by ${rise.toFixed(1)} MB`);
        assert.ok(
          worstBlock.ms <= LOOP_BUDGET_MS,
          `a request blocked the loop for ${worstBlock.ms.toFixed(0)} ms: ${worstBlock.request}`,
        );
      });
    });
  });
}
