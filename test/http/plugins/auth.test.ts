/**
 * Credentials and scopes on every endpoint: who gets in, who gets 401 or 403, that a revoked
 * credential stops working at once, and that on PostgreSQL one kept is not read again. The
 * sign-in scope reaches its two routes and nothing else; the catalogue scope reaches products
 * and newsletters and nothing else.
 */
import assert from 'node:assert/strict';
import { before, after, describe, it } from 'node:test';
import {
  createSubscription,
  createUser,
  createWebhook,
  issueKey,
  onlyError,
  subscriptionDocument,
  userDocument,
  webhookDocument,
} from '../../support/fixtures.js';
import { eventually } from '../../support/eventually.js';
import { recordStatements } from '../../support/statements.js';
import { createReader, issueResetToken, resetDocument, signInDocument } from '../../support/readers.js';
import { startService, type Client, type Response, type Service } from '../../support/service.js';
import { forEachStore } from '../../support/stores.js';

const SCOPES = ['read', 'write', 'admin', 'sign-in', 'catalogue'] as const;
type Scope = (typeof SCOPES)[number];
/** What a route needs: one scope, or either of two (as the 403 names them). */
type Need = Scope | 'catalogue or read';

/** Which credentials a route needing a scope lets in: the scope itself and those that include it. */
const LET_IN: Record<Need, readonly Scope[]> = {
  read: ['read', 'write', 'admin'],
  write: ['write', 'admin'],
  admin: ['admin'],
  // Not write: a credential that changes readers is no way to test their passwords too.
  'sign-in': ['sign-in', 'admin'],
  catalogue: ['catalogue', 'admin'],
  'catalogue or read': ['catalogue', 'read', 'write', 'admin'],
};

forEachStore((kind) => {
  let service: Service;
  let secrets: Record<Scope | 'revoked', string>;
  let userId: string;
  let webhookId: string;
  let deliveryId: string;

  before(async () => {
    service = await startService(kind);
    const admin = service.client;
    secrets = {
      read: (await issueKey(admin, ['read'])).secret,
      write: (await issueKey(admin, ['write'])).secret,
      admin: (await issueKey(admin, ['admin'])).secret,
      'sign-in': (await issueKey(admin, ['sign-in'])).secret,
      catalogue: (await issueKey(admin, ['catalogue'])).secret,
      revoked: '',
    };
    const revoked = await issueKey(admin, ['admin']);
    assert.equal((await admin.delete(`/api-keys/${revoked.id}`)).status, 204);
    secrets.revoked = revoked.secret;
    webhookId = await createWebhook(admin);
    userId = await createUser(admin);
    deliveryId = (await admin.get(`/webhooks/${webhookId}/deliveries`)).body.data[0].id;
  });
  after(() => service.close());

  /** One request to each endpoint, made fresh each time (so writes have something to act on). */
  interface Endpoint {
    name: string;
    needs: Need;
    send(client: Client): Promise<Response>;
  }
  const endpoints: Endpoint[] = [
    { name: 'POST /users', needs: 'write', send: (c) => c.post('/users', userDocument()) },
    { name: 'GET /users', needs: 'read', send: (c) => c.get('/users') },
    { name: 'GET /users/{id}', needs: 'read', send: (c) => c.get(`/users/${userId}`) },
    ...(['PUT', 'PATCH'] as const).map((method) => ({
      name: `${method} /users/{id}`,
      needs: 'write' as const,
      send: (c: Client) =>
        c.request(method, `/users/${userId}`, { body: { data: { type: 'users', id: userId, attributes: {} } } }),
    })),
    {
      name: 'DELETE /users/{id}',
      needs: 'write',
      send: async (c) => c.delete(`/users/${await createUser(service.client)}`),
    },
    {
      name: 'POST /users/{id}/subscriptions',
      needs: 'write',
      send: (c) => c.post(`/users/${userId}/subscriptions`, subscriptionDocument()),
    },
    { name: 'GET /users/{id}/subscriptions', needs: 'read', send: (c) => c.get(`/users/${userId}/subscriptions`) },
    {
      name: 'GET /users/{id}/subscriptions/{id}',
      needs: 'read',
      send: async (c) => c.get(`/users/${userId}/subscriptions/${await createSubscription(service.client, userId)}`),
    },
    ...(['PUT', 'PATCH'] as const).map((method) => ({
      name: `${method} /users/{id}/subscriptions/{id}`,
      needs: 'write' as const,
      send: async (c: Client) => {
        const id = await createSubscription(service.client, userId);
        return c.request(method, `/users/${userId}/subscriptions/${id}`, {
          body: { data: { type: 'subscriptions', id, attributes: { trial: true } } },
        });
      },
    })),
    {
      name: 'DELETE /users/{id}/subscriptions/{id}',
      needs: 'write',
      send: async (c) => c.delete(`/users/${userId}/subscriptions/${await createSubscription(service.client, userId)}`),
    },
    {
      name: 'PUT /users/{id}/subscriptions/{id}/expire',
      needs: 'write',
      send: async (c) =>
        c.put(`/users/${userId}/subscriptions/${await createSubscription(service.client, userId)}/expire`),
    },
    { name: 'GET /users/{id}/access', needs: 'read', send: (c) => c.get(`/users/${userId}/access`) },
    ...catalogueEndpoints('products'),
    ...catalogueEndpoints('newsletters'),
    {
      name: 'POST /api-keys',
      needs: 'admin',
      send: (c) => c.post('/api-keys', { data: { type: 'api-keys', attributes: { name: 'n', scopes: ['read'] } } }),
    },
    { name: 'GET /api-keys', needs: 'admin', send: (c) => c.get('/api-keys') },
    { name: 'GET /api-keys/{id}', needs: 'admin', send: (c) => c.get('/api-keys/1') },
    {
      name: 'DELETE /api-keys/{id}',
      needs: 'admin',
      send: async (c) => c.delete(`/api-keys/${(await issueKey(service.client, ['read'])).id}`),
    },
    { name: 'GET /audit-events', needs: 'admin', send: (c) => c.get('/audit-events') },
    { name: 'GET /events', needs: 'read', send: (c) => c.get('/events') },
    { name: 'GET /reports/subscriptions', needs: 'read', send: (c) => c.get('/reports/subscriptions') },
    { name: 'POST /webhooks', needs: 'admin', send: (c) => c.post('/webhooks', webhookDocument()) },
    { name: 'GET /webhooks', needs: 'admin', send: (c) => c.get('/webhooks') },
    { name: 'GET /webhooks/{id}', needs: 'admin', send: (c) => c.get(`/webhooks/${webhookId}`) },
    ...(['PUT', 'PATCH'] as const).map((method) => ({
      name: `${method} /webhooks/{id}`,
      needs: 'admin' as const,
      send: (c: Client) =>
        c.request(method, `/webhooks/${webhookId}`, {
          body: { data: { type: 'webhooks', id: webhookId, attributes: { events: ['user.created'] } } },
        }),
    })),
    {
      name: 'DELETE /webhooks/{id}',
      needs: 'admin',
      send: async (c) => c.delete(`/webhooks/${await createWebhook(service.client)}`),
    },
    {
      name: 'GET /webhooks/{id}/deliveries',
      needs: 'admin',
      send: (c) => c.get(`/webhooks/${webhookId}/deliveries`),
    },
    {
      name: 'GET /webhooks/{id}/deliveries/{id}',
      needs: 'admin',
      send: (c) => c.get(`/webhooks/${webhookId}/deliveries/${deliveryId}`),
    },
    {
      name: 'POST /webhooks/{id}/deliveries/{id}/redeliver',
      needs: 'admin',
      send: (c) => c.post(`/webhooks/${webhookId}/deliveries/${deliveryId}/redeliver`, undefined),
    },
    {
      name: 'POST /sign-ins',
      needs: 'sign-in',
      send: async (c) => {
        const reader = await createReader(service.client);
        return c.post('/sign-ins', signInDocument(reader.email, reader.password));
      },
    },
    // POST /users/{id}/password-reset-tokens: who is shown a token, and who may only have it
    // mailed, depends on mail too (password-resets.test.ts, password-reset-mail.test.ts).
    {
      name: 'POST /password-resets',
      needs: 'sign-in',
      send: async (c) => {
        const reader = await createReader(service.client);
        const token = await issueResetToken(service.client, reader.id);
        return c.post('/password-resets', resetDocument(token, 'a new password for the matrix'));
      },
    },
  ];

  /** The routes every kind of catalogue record has, each acting on a record of its own. */
  function catalogueEndpoints(type: 'products' | 'newsletters'): Endpoint[] {
    const document = (attributes: Record<string, unknown>, id?: string) => ({
      data: { type, ...(id === undefined ? {} : { id }), attributes },
    });
    const create = async () => {
      const response = await service.client.post(`/${type}`, document({ name: 'A record of the matrix' }));
      assert.equal(response.status, 201, response.text);
      return response.body.data.id as string;
    };
    return [
      { name: `POST /${type}`, needs: 'catalogue', send: (c) => c.post(`/${type}`, document({ name: 'New' })) },
      { name: `GET /${type}`, needs: 'catalogue or read', send: (c) => c.get(`/${type}`) },
      { name: `GET /${type}/{id}`, needs: 'catalogue or read', send: async (c) => c.get(`/${type}/${await create()}`) },
      ...(['PUT', 'PATCH'] as const).map((method) => ({
        name: `${method} /${type}/{id}`,
        needs: 'catalogue' as const,
        send: async (c: Client) => {
          const id = await create();
          return c.request(method, `/${type}/${id}`, { body: document({ description: 'Changed' }, id) });
        },
      })),
      { name: `DELETE /${type}/{id}`, needs: 'catalogue', send: async (c) => c.delete(`/${type}/${await create()}`) },
    ];
  }

  for (const endpoint of endpoints) {
    describe(endpoint.name, () => {
      it('answers 401 with WWW-Authenticate without a credential', async () => {
        const response = await endpoint.send(service.client.as(null));
        const error = onlyError(response, 401);
        assert.equal(error.title, 'Unauthorized');
        assert.match(response.headers.get('www-authenticate') ?? '', /^Bearer realm="circulation", Basic/);
      });

      it('answers 401 to a wrong secret, well-formed or not', async () => {
        const wrong = `${secrets.admin.slice(0, -4)}AAAA`;
        onlyError(await endpoint.send(service.client.as(wrong)), 401);
        onlyError(await endpoint.send(service.client.as('not-a-secret')), 401);
      });

      it('answers 401 to a revoked credential', async () => {
        onlyError(await endpoint.send(service.client.as(secrets.revoked)), 401);
      });

      for (const scope of SCOPES) {
        const allowed = LET_IN[endpoint.needs].includes(scope);
        it(`${allowed ? 'lets in' : 'answers 403 to'} a ${scope} credential`, async () => {
          const response = await endpoint.send(service.client.as(secrets[scope]));
          if (allowed) {
            assert.ok(response.status >= 200 && response.status < 300, `${response.status}: ${response.text}`);
          } else {
            const error = onlyError(response, 403);
            assert.match(error.detail, new RegExp(`needs ${endpoint.needs}`));
          }
        });
      }
    });
  }

  describe('credentials', () => {
    it('are accepted as the password of HTTP Basic, whatever the user name', async () => {
      const basic = Buffer.from(`anyone:${secrets.read}`).toString('base64');
      const response = await service.client.as(null).get('/users', { headers: { authorization: `Basic ${basic}` } });
      assert.equal(response.status, 200, response.text);
    });

    it('answers 401 to Basic with a wrong password', async () => {
      const basic = Buffer.from(`anyone:wrong`).toString('base64');
      onlyError(await service.client.as(null).get('/users', { headers: { authorization: `Basic ${basic}` } }), 401);
    });

    it('answer 401, not 404, for an unknown route without a credential', async () => {
      onlyError(await service.client.as(null).get('/secret-admin-page'), 401);
    });

    it('show the secret once, in meta.secret of the create response, and never again', async () => {
      const { id, secret } = await issueKey(service.client, ['read']);
      assert.match(secret, /^circ_\d+_[A-Za-z0-9_-]{43}$/);
      const read = await service.client.get(`/api-keys/${id}`);
      const list = await service.client.get('/api-keys');
      for (const response of [read, list]) {
        assert.equal(response.status, 200);
        assert.ok(!response.text.includes(secret.slice(-43)), 'a secret was shown again');
        assert.equal(response.body.meta, undefined);
      }
      assert.deepEqual(read.body.data.attributes.scopes, ['read']);
      assert.equal(read.body.data.attributes.revokedAt, null);
    });

    it('stop working on the next request once revoked, and show when', async () => {
      const { id, secret } = await issueKey(service.client, ['read']);
      // Accepted many times over: whatever the process keeps of a credential, it has kept this one.
      for (let i = 0; i < 20; i += 1) assert.equal((await service.client.as(secret).get('/users')).status, 200);
      assert.equal((await service.client.delete(`/api-keys/${id}`)).status, 204);
      onlyError(await service.client.as(secret).get('/users'), 401);
      const revokedAt = (await service.client.get(`/api-keys/${id}`)).body.data.attributes.revokedAt;
      assert.match(revokedAt, /^\d{4}-\d{2}-\d{2}T/);
    });

    it('refuse a create without a name or scopes, or with an unknown scope', async () => {
      const response = await service.client.post('/api-keys', {
        data: { type: 'api-keys', attributes: { name: ' ', scopes: ['superuser'] } },
      });
      assert.equal(response.status, 422);
      assert.deepEqual(response.body.errors.map((e: any) => e.source.pointer).sort(), [
        '/data/attributes/name',
        '/data/attributes/scopes/0',
      ]);
    });

    it('refuse a rate limit that is not a whole number in range with one error that says why', async () => {
      for (const [rateLimit, detail] of [
        [2_000_000, 'must be at most 1000000'],
        [0, 'must be at least 1'],
        ['fast', 'must be an integer'],
      ] as const) {
        const response = await service.client.post('/api-keys', {
          data: { type: 'api-keys', attributes: { name: 'limited', scopes: ['read'], rateLimit } },
        });
        const error = onlyError(response, 422);
        assert.equal(error.source.pointer, '/data/attributes/rateLimit');
        assert.equal(error.detail, detail);
      }
    });

    it('answer 404 for an unknown key', async () => {
      onlyError(await service.client.get('/api-keys/987654'), 404);
      onlyError(await service.client.delete('/api-keys/987654'), 404);
    });

    // PostgreSQL's statements can be counted; SQLite's reads are calls within the process.
    if (kind === 'PostgreSQL')
      it('let a GET of one subscription make a single round trip to PostgreSQL, its own read, once kept', async () => {
        const { secret } = await issueKey(service.client, ['read']);
        const path = `/users/${userId}/subscriptions/${await createSubscription(service.client, userId)}`;
        // The first requests read the credential, until the process listens for changes to it.
        const { result, statements } = await eventually(async () => {
          const recorded = await recordStatements(() => service.client.as(secret).get(path));
          return recorded.statements.length === 1 && recorded;
        }, 'a GET sending a single statement');
        assert.equal(result.status, 200);
        assert.match(statements[0]?.text ?? '', /FROM subscriptions/);
      });
  });
});
