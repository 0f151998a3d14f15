/**
 * JSON:API content negotiation and routing: the media type every response carries, the
 * request media types and Accept headers the service takes or refuses (415 and 406), and
 * what unknown routes, wrong methods and HEAD requests are answered with.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, it } from 'node:test';
import { createSubscription, createUser, userDocument } from '../../support/fixtures.js';
import { MEDIA_TYPE, startService, TEST_ADMIN_KEY, type Response, type Service } from '../../support/service.js';
import { forEachStore } from '../../support/stores.js';

forEachStore((kind) => {
  let service: Service;
  let userId: string;
  let subscriptionId: string;

  before(async () => {
    service = await startService(kind);
    userId = await createUser(service.client);
    subscriptionId = await createSubscription(service.client, userId);
  });
  after(() => service.close());

  /** The single error of a response with `status`, asserting the store did not change. */
  async function refusedUnchanged(status: number, send: () => Promise<Response>) {
    const state = await service.snapshot();
    const response = await send();
    assert.equal(response.status, status, response.text);
    assert.equal(response.body.errors.length, 1, response.text);
    assert.equal(await service.snapshot(), state, 'a refused request changed the store');
    return response.body.errors[0];
  }

  const withContentType = (contentType: string) => ({ headers: { 'content-type': contentType } });
  const withAccept = (accept: string) => ({ headers: { accept } });

  describe('the media type of responses', () => {
    const requests: [string, () => Promise<Response>, number][] = [
      ['a list (200)', () => service.client.get('/users'), 200],
      ['a single resource (200)', () => service.client.get(`/users/${userId}`), 200],
      ['a create (201)', () => service.client.post('/users', userDocument()), 201],
      ['a body that is not JSON (400)', () => service.client.post('/users', '{'), 400],
      ['a bad query parameter (400)', () => service.client.get('/users?page[number]=0'), 400],
      ['an unknown record (404)', () => service.client.get('/users/987654321'), 404],
      ['an unknown route (404)', () => service.client.get('/nowhere'), 404],
      ['a wrong method (405)', () => service.client.delete('/users'), 405],
      ['an unacceptable Accept (406)', () => service.client.get('/users', withAccept('text/html')), 406],
      [
        'a body too large (413)',
        () => service.client.post('/users', userDocument({ internalNotes: 'x'.repeat(1_100_000) })),
        413,
      ],
      [
        'an unsupported Content-Type (415)',
        () => service.client.post('/users', userDocument(), withContentType('text/plain')),
        415,
      ],
      ['an invalid attribute (422)', () => service.client.post('/users', userDocument({ email: 'nope' })), 422],
    ];
    for (const [what, send, status] of requests) {
      it(`is exactly application/vnd.api+json, with no charset, on ${what}`, async () => {
        const response = await send();
        assert.equal(response.status, status, response.text);
        assert.equal(response.headers.get('content-type'), 'application/vnd.api+json');
      });
    }

    it('is absent, with no body, on a 204', async () => {
      const id = await createUser(service.client);
      const response = await service.client.put(`/users/${id}`, {
        data: { type: 'users', id, attributes: { givenName: 'A' } },
      });
      assert.equal(response.status, 204, response.text);
      assert.equal(response.text, '');
      assert.equal(response.headers.get('content-type'), null);
    });
  });

  describe('the Content-Type of requests', () => {
    const refusedTypes = [
      `${MEDIA_TYPE}; charset=utf-8`,
      `${MEDIA_TYPE};charset=UTF-8`,
      `${MEDIA_TYPE}; ext="https://example.com/ext"`,
      `${MEDIA_TYPE}; ext=https://jsonapi.org/ext/atomic`,
      `${MEDIA_TYPE}; foo=bar`,
      'text/plain',
      'text/json',
      'application/xml',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/vnd.api+jsonx',
      'application/json; charset=latin1',
    ];
    for (const contentType of refusedTypes) {
      it(`refuses Content-Type ${JSON.stringify(contentType)} with 415, creating nothing`, async () => {
        const error = await refusedUnchanged(415, () =>
          service.client.post('/users', userDocument(), withContentType(contentType)),
        );
        assert.equal(error.title, 'Unsupported Media Type');
        assert.deepEqual(error.source, { header: 'Content-Type' });
      });
    }

    it('refuses a media type parameter other than profile on PUT with 415, changing nothing', async () => {
      const body = { data: { type: 'users', id: userId, attributes: { givenName: 'Changed' } } };
      await refusedUnchanged(415, () =>
        service.client.put(`/users/${userId}`, body, withContentType(`${MEDIA_TYPE}; charset=utf-8`)),
      );
    });

    it('refuses text/plain on PATCH with 415, changing nothing', async () => {
      const body = { data: { type: 'users', id: userId, attributes: { givenName: 'Changed' } } };
      await refusedUnchanged(415, () => service.client.patch(`/users/${userId}`, body, withContentType('text/plain')));
    });

    it('refuses an ext parameter on a subscription update with 415, changing nothing', async () => {
      const body = { data: { type: 'subscriptions', id: subscriptionId, attributes: { trial: true } } };
      await refusedUnchanged(415, () =>
        service.client.put(
          `/users/${userId}/subscriptions/${subscriptionId}`,
          body,
          withContentType(`${MEDIA_TYPE}; ext="x"`),
        ),
      );
    });

    it('names the refused charset and says what to send instead', async () => {
      const error = await refusedUnchanged(415, () =>
        service.client.post('/users', userDocument(), withContentType(`${MEDIA_TYPE}; charset=utf-8`)),
      );
      assert.match(error.detail, /"charset"/);
      assert.match(error.detail, /send exactly application\/vnd\.api\+json/);
    });

    const acceptedTypes = [
      MEDIA_TYPE,
      `${MEDIA_TYPE}; profile="https://example.com/profile"`,
      'application/json',
      'application/json; charset=utf-8',
      'Application/Vnd.Api+Json',
    ];
    for (const contentType of acceptedTypes) {
      it(`accepts Content-Type ${JSON.stringify(contentType)}`, async () => {
        const response = await service.client.post('/users', userDocument(), withContentType(contentType));
        assert.equal(response.status, 201, response.text);
      });
    }
  });

  describe('the Accept header', () => {
    it('names the media type parameter it cannot honour', async () => {
      const response = await service.client.get('/users', withAccept(`${MEDIA_TYPE}; ext=x`));
      assert.equal(response.status, 406, response.text);
      assert.match(response.body.errors[0].detail, /"ext"/);
    });

    const refusedAccepts = [
      `${MEDIA_TYPE}; ext=x`,
      `${MEDIA_TYPE}; ext="https://jsonapi.org/ext/atomic"`,
      `${MEDIA_TYPE}; charset=utf-8`,
      `${MEDIA_TYPE}; ext=x, ${MEDIA_TYPE}; ext=y`,
      'text/html',
      'application/xml',
      'text/*',
    ];
    for (const accept of refusedAccepts) {
      it(`refuses Accept ${JSON.stringify(accept)} with 406 naming the Accept header`, async () => {
        const response = await service.client.get('/users', withAccept(accept));
        assert.equal(response.status, 406, response.text);
        assert.equal(response.body.errors[0].title, 'Not Acceptable');
        assert.deepEqual(response.body.errors[0].source, { header: 'Accept' });
      });
    }

    it('refuses a POST whose Accept allows only JSON:API with ext with 406, creating nothing', async () => {
      await refusedUnchanged(406, () =>
        service.client.post('/users', userDocument(), withAccept(`${MEDIA_TYPE}; ext=x`)),
      );
    });

    const acceptedAccepts = [
      MEDIA_TYPE,
      `${MEDIA_TYPE}; profile="https://example.com/profile"`,
      `${MEDIA_TYPE}; ext=x, ${MEDIA_TYPE}`,
      'application/json',
      '*/*',
      'application/*',
      'text/html, */*;q=0.1',
      'Application/Vnd.Api+Json',
    ];
    for (const accept of acceptedAccepts) {
      it(`answers 200 to Accept ${JSON.stringify(accept)}`, async () => {
        const response = await service.client.get('/users', withAccept(accept));
        assert.equal(response.status, 200, response.text);
      });
    }

    it('answers 200 to a request with no Accept header at all', async () => {
      // fetch always sends an Accept header; node:http sends none unless told.
      const { status, contentType } = await new Promise<{ status: number; contentType: string | undefined }>(
        (resolve, reject) => {
          http
            .get(
              `${service.baseUrl}/users/${userId}`,
              { headers: { authorization: `Bearer ${TEST_ADMIN_KEY}` } },
              (response) => {
                response.resume();
                response.on('end', () =>
                  resolve({ status: response.statusCode ?? 0, contentType: response.headers['content-type'] }),
                );
              },
            )
            .on('error', reject);
        },
      );
      assert.equal(status, 200);
      assert.equal(contentType, MEDIA_TYPE);
    });
  });

  describe('unknown routes', () => {
    for (const [method, path] of [
      ['GET', '/nowhere'],
      ['GET', '/'],
      ['POST', '/nowhere'],
      ['GET', '/users/1/nowhere'],
      ['GET', '/users/1/subscriptions/1/expire/now'],
      ['DELETE', '/subscriptions/1'],
    ] as const) {
      it(`answers ${method} ${path} with a 404 JSON:API error`, async () => {
        const response = await service.client.request(method, path, method === 'POST' ? { body: {} } : {});
        assert.equal(response.status, 404, response.text);
        assert.equal(response.body.errors.length, 1);
        assert.equal(response.body.errors[0].status, '404');
        assert.equal(response.body.errors[0].title, 'Not Found');
      });
    }
  });

  describe('methods a route does not have', () => {
    const allowSet = (response: Response) =>
      (response.headers.get('allow') ?? '')
        .split(',')
        .map((m) => m.trim())
        .filter(Boolean)
        .sort();

    const cases: [string, string, string[]][] = [
      ['DELETE', '/users', ['GET', 'HEAD', 'POST']],
      ['PUT', '/users', ['GET', 'HEAD', 'POST']],
      ['PATCH', '/users', ['GET', 'HEAD', 'POST']],
      ['POST', '/users/1', ['DELETE', 'GET', 'HEAD', 'PATCH', 'PUT']],
      ['POST', '/users/1/subscriptions/1', ['DELETE', 'GET', 'HEAD', 'PATCH', 'PUT']],
      ['DELETE', '/users/1/subscriptions', ['GET', 'HEAD', 'POST']],
      ['GET', '/users/1/subscriptions/1/expire', ['PUT']],
      ['POST', '/users/1/subscriptions/1/expire', ['PUT']],
    ];
    for (const [method, path, allowed] of cases) {
      it(`answers ${method} ${path} with 405 and Allow: ${allowed.join(', ')}`, async () => {
        const response = await service.client.request(method, path, method === 'POST' ? { body: {} } : {});
        assert.equal(response.status, 405, response.text);
        assert.deepEqual(allowSet(response), allowed);
        assert.equal(response.body.errors[0].title, 'Method Not Allowed');
      });
    }

    it('changes nothing on a 405', async () => {
      const state = await service.snapshot();
      const response = await service.client.post(`/users/${userId}`, userDocument());
      assert.equal(response.status, 405, response.text);
      assert.equal(await service.snapshot(), state);
    });
  });

  describe('HEAD', () => {
    const paths = [
      ['/users', () => '/users'],
      ['/users/{id}', () => `/users/${userId}`],
      ['/users/{id}/subscriptions', () => `/users/${userId}/subscriptions`],
      ['/users/{id}/subscriptions/{id}', () => `/users/${userId}/subscriptions/${subscriptionId}`],
    ] as const;
    for (const [route, path] of paths) {
      it(`answers HEAD ${route} as GET would, without a body`, async () => {
        const get = await service.client.get(path());
        const head = await service.client.request('HEAD', path());
        assert.equal(head.status, 200);
        assert.equal(head.text, '');
        assert.equal(head.headers.get('content-type'), MEDIA_TYPE);
        assert.equal(head.headers.get('content-length'), String(Buffer.byteLength(get.text)));
      });
    }

    it('answers HEAD of an unknown user with 404 and no body', async () => {
      const head = await service.client.request('HEAD', '/users/987654321');
      assert.equal(head.status, 404);
      assert.equal(head.text, '');
    });

    it('answers HEAD with Accept text/html with 406', async () => {
      const head = await service.client.request('HEAD', '/users', withAccept('text/html'));
      assert.equal(head.status, 406);
    });
  });
});
