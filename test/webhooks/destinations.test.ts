/**
 * Webhooks cannot reach into the network the service runs in: an endpoint at an internal address
 * is refused when registered, a name that resolves to one when a delivery connects is refused then
 * (DNS rebinding cannot pass), and what a delivery records says nothing of what answered.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LookupAddress } from 'node:dns';
import { parseNetworks } from '../../src/domain/webhooks.js';
import type { Resolver } from '../../src/webhooks/destination.js';
import { startDispatcher, type Dispatcher } from '../../src/webhooks/dispatcher.js';
import { createUser, webhookDocument } from '../support/fixtures.js';
import { eventually } from '../support/eventually.js';
import { startService, TEST_WEBHOOK_KEY, type Service } from '../support/service.js';
import { forEachStore } from '../support/stores.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

const quiet = { warn() {}, error() {}, debug() {} };

/** A resolver that answers what a rebinding name server would: an internal address, for a public-looking name. */
const rebinding: Resolver = (hostname, _options, callback) => {
  const answer: LookupAddress[] = hostname === 'rebinding.example' ? [{ address: '127.0.0.1', family: 4 }] : [];
  callback(answer.length === 0 ? Object.assign(new Error('ENOTFOUND'), { code: 'ENOTFOUND' }) : null, answer);
};

forEachStore((kind) => {
  let service: Service;
  let receiver: WebhookReceiver;
  let dispatcher: Dispatcher;
  before(async () => {
    // Neither the service nor its dispatcher allows any internal network.
    service = await startService(kind, {
      webhooks: { changed: () => dispatcher.wake(), allowedNetworks: [] },
    });
    receiver = await WebhookReceiver.start();
    dispatcher = startDispatcher(service.store, {
      key: TEST_WEBHOOK_KEY,
      timeoutMs: 1000,
      concurrency: 2,
      pollMs: 20,
      retry: { baseMs: 60_000, maxMs: 60_000, maxAttempts: 3 },
      allowedNetworks: [],
      resolve: rebinding,
      log: quiet,
    });
  });
  after(async () => {
    await dispatcher.stop();
    await receiver.close();
    await service.close();
  });

  describe('registering an endpoint', () => {
    for (const url of [
      'http://169.254.169.254/latest/meta-data/',
      'http://127.0.0.1:9000/',
      'http://[::1]:22/',
      'http://0.0.0.0:6379/',
      'http://10.0.0.5/hook',
      'http://localhost:8080/',
    ]) {
      it(`refuses ${url} with 422 at /data/attributes/url`, async () => {
        const response = await service.client.post('/webhooks', webhookDocument({ url }));
        assert.equal(response.status, 422, response.text);
        assert.equal(response.body.errors[0].source.pointer, '/data/attributes/url');
      });
    }

    it('refuses to move an endpoint to an internal address, changing nothing', async () => {
      const created = await service.client.post('/webhooks', webhookDocument({ url: 'https://hooks.example.com/' }));
      assert.equal(created.status, 201, created.text);
      const id = created.body.data.id;
      const moved = await service.client.patch(`/webhooks/${id}`, {
        data: { type: 'webhooks', id, attributes: { url: 'http://192.168.0.1/' } },
      });
      assert.equal(moved.status, 422, moved.text);
      assert.equal(
        (await service.client.get(`/webhooks/${id}`)).body.data.attributes.url,
        'https://hooks.example.com/',
      );
      await service.client.delete(`/webhooks/${id}`);
    });

    it('takes an endpoint in a network the deployment allows', async () => {
      const allowing = await startService(kind, { webhooks: { allowedNetworks: parseNetworks('10.0.0.0/8') } });
      try {
        const created = await allowing.client.post('/webhooks', webhookDocument({ url: 'http://10.0.0.5/hook' }));
        assert.equal(created.status, 201, created.text);
      } finally {
        await allowing.close();
      }
    });
  });

  describe('delivering', () => {
    it('never connects to a name that resolves to an internal address, and records a generic error', async () => {
      const port = new URL(receiver.url).port;
      const created = await service.client.post(
        '/webhooks',
        webhookDocument({ url: `http://rebinding.example:${port}/hooks`, events: ['user.created'] }),
      );
      assert.equal(created.status, 201, created.text);
      const webhookId = created.body.data.id;
      await createUser(service.client);
      const delivery = await eventually(async () => {
        const list = (await service.client.get(`/webhooks/${webhookId}/deliveries`)).body.data as any[];
        return list.find((d) => d.attributes.lastError !== null);
      }, 'the refused attempt');
      assert.match(delivery.attributes.lastError, /^the endpoint resolves to an address deliveries may not reach/);
      assert.equal(delivery.attributes.lastStatus, null);
      assert.equal(receiver.attempts.length, 0, 'the internal address was reached');
      await service.client.delete(`/webhooks/${webhookId}`);
    });

    it('says only that an endpoint could not be reached, not how the network answered', async () => {
      const created = await service.client.post(
        '/webhooks',
        webhookDocument({ url: 'http://nowhere.invalid/hooks', events: ['user.created'] }),
      );
      const webhookId = created.body.data.id;
      await createUser(service.client);
      const delivery = await eventually(async () => {
        const list = (await service.client.get(`/webhooks/${webhookId}/deliveries`)).body.data as any[];
        return list.find((d) => d.attributes.lastError !== null);
      }, 'the failed attempt');
      assert.equal(delivery.attributes.lastError, 'the endpoint could not be reached');
      await service.client.delete(`/webhooks/${webhookId}`);
    });
  });
});
