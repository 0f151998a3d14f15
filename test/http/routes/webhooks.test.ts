/**
 * /webhooks: admins register endpoints for events and see their deliveries. The signing secret is
 * shown once and never stored; every event a webhook subscribes to gets a delivery, written with
 * the change itself.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createSubscription, createUser, createWebhook, onlyError, webhookDocument } from '../../support/fixtures.js';
import { startService, type Service } from '../../support/service.js';
import { forEachStoreAndCitus } from '../../support/citus.js';

forEachStoreAndCitus((kind) => {
  let service: Service;
  before(async () => {
    service = await startService(kind);
  });
  after(() => service.close());

  const deliveriesOf = async (webhookId: string, query = '') =>
    (await service.client.get(`/webhooks/${webhookId}/deliveries${query}`)).body.data;

  describe('POST /webhooks', () => {
    it('registers an endpoint: 201 with Location, ETag, and the signing secret once in meta.secret', async () => {
      const response = await service.client.post(
        '/webhooks',
        webhookDocument({ url: 'https://crm.example.com/hooks?source=circulation', events: ['user.created'] }),
      );
      assert.equal(response.status, 201, response.text);
      const { data, meta } = response.body;
      assert.equal(response.headers.get('location'), data.links.self);
      assert.equal(response.headers.get('etag'), '"1"');
      assert.match(meta.secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
      assert.deepEqual(
        { url: data.attributes.url, events: data.attributes.events },
        { url: 'https://crm.example.com/hooks?source=circulation', events: ['user.created'] },
      );
      const read = await service.client.get(new URL(data.links.self).pathname);
      assert.equal(read.status, 200);
      assert.deepEqual(read.body.data, data);
    });

    it('never shows the secret again, and keeps it nowhere in the database', async () => {
      const response = await service.client.post('/webhooks', webhookDocument());
      const secret: string = response.body.meta.secret;
      const id = response.body.data.id;
      for (const later of [await service.client.get(`/webhooks/${id}`), await service.client.get('/webhooks')]) {
        assert.equal(later.status, 200);
        assert.equal(later.body.meta, undefined);
        assert.ok(!later.text.includes(secret.slice('whsec_'.length, -1)), 'the secret was shown again');
      }
      const dump = await service.rawDump();
      const bytes = Buffer.from(secret.slice('whsec_'.length), 'base64');
      for (const form of [secret, bytes.toString('base64'), bytes.toString('hex'), bytes.toString('latin1')]) {
        assert.ok(!dump.includes(form), 'the database holds the signing secret');
      }
    });

    it('gives each webhook a secret of its own', async () => {
      const first = await service.client.post('/webhooks', webhookDocument());
      const second = await service.client.post('/webhooks', webhookDocument());
      assert.notEqual(first.body.meta.secret, second.body.meta.secret);
    });

    for (const url of [
      'ftp://example.com/hook',
      'http://user:password@example.com/hook',
      'https://example.com/hook#part',
      'not a url',
      '/relative/path',
      `https://example.com/${'a'.repeat(2048)}`,
    ]) {
      it(`refuses the address ${JSON.stringify(url.slice(0, 40))} with 422 at /data/attributes/url`, async () => {
        const before = await service.client.get('/webhooks');
        const error = onlyError(await service.client.post('/webhooks', webhookDocument({ url })), 422);
        assert.equal(error.source.pointer, '/data/attributes/url');
        assert.deepEqual((await service.client.get('/webhooks')).body, before.body);
      });
    }

    it('refuses unknown, repeated or no event types with 422 at the list or the item', async () => {
      const unknown = onlyError(
        await service.client.post('/webhooks', webhookDocument({ events: ['user.created', 'user.renamed'] })),
        422,
      );
      assert.equal(unknown.source.pointer, '/data/attributes/events/1');
      for (const events of [[], ['user.created', 'user.created']]) {
        const error = onlyError(await service.client.post('/webhooks', webhookDocument({ events })), 422);
        assert.equal(error.source.pointer, '/data/attributes/events');
      }
    });

    it('refuses an unknown attribute and a missing url with 422', async () => {
      const response = await service.client.post('/webhooks', {
        data: { type: 'webhooks', attributes: { events: ['user.created'], secret: 'mine' } },
      });
      assert.equal(response.status, 422, response.text);
      assert.deepEqual(response.body.errors.map((e: any) => e.source.pointer).sort(), [
        '/data/attributes/secret',
        '/data/attributes/url',
      ]);
    });

    it('refuses an Idempotency-Key with 400: a secret shown once is never kept to replay', async () => {
      for (const [path, document] of [
        ['/webhooks', webhookDocument()],
        ['/api-keys', { data: { type: 'api-keys', attributes: { name: 'crm', scopes: ['read'] } } }],
      ] as const) {
        const error = onlyError(
          await service.client.post(path, document, { headers: { 'idempotency-key': `key-${path}` } }),
          400,
        );
        assert.deepEqual(error.source, { header: 'Idempotency-Key' });
      }
      assert.deepEqual(await service.sql('SELECT * FROM idempotency_keys'), []);
    });
  });

  describe('a service without a webhook key', () => {
    it('answers 503 to a new webhook, saying what to set', async () => {
      const keyless = await startService(kind, {
        keys: { webhook: undefined, fingerprint: undefined, links: undefined, device: undefined },
      });
      try {
        const error = onlyError(await keyless.client.post('/webhooks', webhookDocument()), 503);
        assert.match(error.detail, /SERVICE_SECRET_KEY/);
        assert.deepEqual((await keyless.client.get('/webhooks')).body.data, []);
      } finally {
        await keyless.close();
      }
    });
  });

  describe('PUT and PATCH /webhooks/{id}', () => {
    for (const method of ['PUT', 'PATCH']) {
      it(`${method} changes only what is sent, answering the webhook with a new ETag`, async () => {
        const id = await createWebhook(service.client);
        const response = await service.client.request(method, `/webhooks/${id}`, {
          body: { data: { type: 'webhooks', id, attributes: { events: ['subscription.expired', 'user.deleted'] } } },
        });
        assert.equal(response.status, 200, response.text);
        assert.equal(response.headers.get('etag'), '"2"');
        assert.deepEqual(response.body.data.attributes.events, ['subscription.expired', 'user.deleted']);
        assert.equal(response.body.data.attributes.url, 'http://127.0.0.1:9/hook');
      });
    }

    it('refuses a stale If-Match with 412 and changes nothing', async () => {
      const id = await createWebhook(service.client);
      const change = (url: string, etag: string) =>
        service.client.patch(
          `/webhooks/${id}`,
          { data: { type: 'webhooks', id, attributes: { url } } },
          { headers: { 'if-match': etag } },
        );
      assert.equal((await change('https://a.example.com/', '"1"')).status, 200);
      onlyError(await change('https://b.example.com/', '"1"'), 412);
      assert.equal((await service.client.get(`/webhooks/${id}`)).body.data.attributes.url, 'https://a.example.com/');
      onlyError(await service.client.delete(`/webhooks/${id}`, { headers: { 'if-match': '"1"' } }), 412);
      assert.equal((await service.client.get(`/webhooks/${id}`)).status, 200);
    });

    it('refuses a bad value with 422, as create does', async () => {
      const id = await createWebhook(service.client);
      const error = onlyError(
        await service.client.patch(`/webhooks/${id}`, {
          data: { type: 'webhooks', id, attributes: { url: 'gopher://x' } },
        }),
        422,
      );
      assert.equal(error.source.pointer, '/data/attributes/url');
    });
  });

  describe('DELETE /webhooks/{id}', () => {
    it('removes the webhook with its deliveries: 204, then 404', async () => {
      const id = await createWebhook(service.client);
      await createUser(service.client);
      assert.equal((await deliveriesOf(id)).length, 1);
      assert.equal((await service.client.delete(`/webhooks/${id}`)).status, 204);
      onlyError(await service.client.get(`/webhooks/${id}`), 404);
      onlyError(await service.client.get(`/webhooks/${id}/deliveries`), 404);
      assert.deepEqual(await service.sql('SELECT * FROM webhook_deliveries WHERE webhook_id = ?', [Number(id)]), []);
    });

    it('answers 404 for an unknown webhook, delivery or redelivery', async () => {
      onlyError(await service.client.get('/webhooks/987654'), 404);
      onlyError(await service.client.delete('/webhooks/987654'), 404);
      onlyError(await service.client.get('/webhooks/987654/deliveries'), 404);
      const id = await createWebhook(service.client);
      onlyError(await service.client.get(`/webhooks/${id}/deliveries/987654`), 404);
      onlyError(await service.client.post(`/webhooks/${id}/deliveries/987654/redeliver`, undefined), 404);
    });
  });

  describe('GET /webhooks/{id}/deliveries', () => {
    it('has one pending delivery for each event the webhook subscribes to, and none for others', async () => {
      const id = await createWebhook(service.client, { events: ['subscription.created'] });
      const userId = await createUser(service.client);
      const subscriptionId = await createSubscription(service.client, userId);
      const [event] = (await service.client.get(`/events?filter[user]=${userId}&filter[type]=subscription.created`))
        .body.data;
      const deliveries = await deliveriesOf(id);
      assert.equal(deliveries.length, 1);
      assert.equal(event.attributes.resourceId, subscriptionId);
      const { createdAt, nextAttemptAt, ...rest } = deliveries[0].attributes;
      assert.deepEqual(rest, {
        eventId: event.id,
        eventType: 'subscription.created',
        userId,
        state: 'pending',
        attempts: 0,
        lastAttemptAt: null,
        lastStatus: null,
        lastError: null,
        deliveredAt: null,
      });
      assert.equal(createdAt, nextAttemptAt);
      const one = await service.client.get(new URL(deliveries[0].links.self).pathname);
      assert.deepEqual(one.body.data, deliveries[0]);
    });

    it('has no delivery for a refused change, nor for changes before the webhook existed', async () => {
      const userId = await createUser(service.client);
      const id = await createWebhook(service.client, { events: ['user.updated'] });
      const refused = await service.client.put(`/users/${userId}`, {
        data: { type: 'users', id: userId, attributes: { email: 'not an email' } },
      });
      assert.equal(refused.status, 422);
      assert.deepEqual(await deliveriesOf(id), []);
    });

    it('pages by cursor through links.next, and filters by state', async () => {
      const id = await createWebhook(service.client, { events: ['user.created'] });
      for (let i = 0; i < 5; i += 1) await createUser(service.client);
      const seen: string[] = [];
      let next: string | undefined = `/webhooks/${id}/deliveries?page[size]=2`;
      while (next) {
        const page = await service.client.get(next.replace(service.baseUrl, ''));
        seen.push(...page.body.data.map((d: any) => d.id));
        next = page.body.links.next;
      }
      assert.equal(seen.length, 5);
      assert.equal((await deliveriesOf(id, '?filter[state]=pending')).length, 5);
      assert.deepEqual(await deliveriesOf(id, '?filter[state]=delivered'), []);
      const error = onlyError(await service.client.get(`/webhooks/${id}/deliveries?filter[state]=lost`), 400);
      assert.deepEqual(error.source, { parameter: 'filter[state]' });
    });
  });
});
