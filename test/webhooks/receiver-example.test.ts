/**
 * The webhook receiver of docs/integrating/webhooks-and-events.md (examples/webhook-receiver.mjs)
 * works as it says: run as its own process, it accepts circulation's signed deliveries, refuses a
 * forged one, and prints each event once even when it is delivered again. The page shows the file
 * as it is.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { startDispatcher, type Dispatcher } from '../../src/webhooks/dispatcher.js';
import { createSubscription, createUser, webhookDocument } from '../support/fixtures.js';
import { startService, TEST_ALLOWED_NETWORKS, TEST_WEBHOOK_KEY, type Service } from '../support/service.js';
import { eventually } from '../support/eventually.js';
import { forEachStore } from '../support/stores.js';

const EXAMPLE = 'examples/webhook-receiver.mjs';
const PAGE = 'docs/integrating/webhooks-and-events.md';

describe('the webhooks page', () => {
  it('shows the webhook receiver example as the file has it', () => {
    const page = readFileSync(PAGE, 'utf8');
    assert.ok(page.includes(readFileSync(EXAMPLE, 'utf8')), `${PAGE} does not show ${EXAMPLE} as it is`);
  });
});

forEachStore((kind) => {
  let service: Service;
  let dispatcher: Dispatcher;
  let receiver: ChildProcess;
  let output = '';
  let receiverUrl: string;
  let webhookId: string;

  before(async () => {
    service = await startService(kind, { webhooks: { changed: () => dispatcher.wake() } });
    const created = await service.client.post(
      '/webhooks',
      webhookDocument({ events: ['user.created', 'subscription.created'] }),
    );
    webhookId = created.body.data.id;
    receiver = spawn(process.execPath, [EXAMPLE], {
      env: { ...process.env, WEBHOOK_SECRET: created.body.meta.secret, PORT: '0' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    receiver.stdout!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    receiverUrl = (await until(/listening on (\S+)/))[1] as string;
    await service.client.patch(`/webhooks/${webhookId}`, {
      data: { type: 'webhooks', id: webhookId, attributes: { url: receiverUrl } },
    });
    dispatcher = startDispatcher(service.store, {
      key: TEST_WEBHOOK_KEY,
      allowedNetworks: TEST_ALLOWED_NETWORKS,
      timeoutMs: 1000,
      concurrency: 2,
      pollMs: 20,
      retry: { baseMs: 50, maxMs: 500, maxAttempts: 5 },
      log: { warn() {}, error() {}, debug() {} },
    });
  });
  after(async () => {
    await dispatcher.stop();
    receiver.kill();
    await service.close();
  });

  const until = (pattern: RegExp) =>
    eventually(
      () => pattern.exec(output),
      () => `the receiver to print ${pattern}: ${output}`,
    );

  describe('examples/webhook-receiver.mjs', () => {
    it('prints each event it receives, once, even when it is delivered again', async () => {
      const userId = await createUser(service.client);
      const subscriptionId = await createSubscription(service.client, userId);
      const line = `subscription.created user ${userId} subscriptions/${subscriptionId}`;
      await until(new RegExp(line));
      assert.match(output, new RegExp(`^\\d+ user.created user ${userId} users/${userId}$`, 'm'));

      const deliveries = (await service.client.get(`/webhooks/${webhookId}/deliveries?filter[state]=delivered`)).body
        .data as any[];
      const again = deliveries.find((d) => d.attributes.userId === userId && d.attributes.eventType === 'user.created');
      await service.client.post(`${new URL(again.links.self).pathname}/redeliver`, undefined);
      await eventually(async () => {
        const state = (await service.client.get(new URL(again.links.self).pathname)).body.data.attributes;
        return state.state === 'delivered' && state.attempts === 1;
      }, 'the redelivery');
      assert.equal(output.split('\n').filter((l) => l.includes(`user.created user ${userId} `)).length, 1);
    });

    it('refuses a message whose signature does not verify', async () => {
      const forged = await fetch(receiverUrl, {
        method: 'POST',
        headers: {
          'webhook-id': '1',
          'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
          'webhook-signature': `v1,${Buffer.alloc(32).toString('base64')}`,
        },
        body: JSON.stringify({ type: 'user.deleted', data: { attributes: {} } }),
      });
      assert.equal(forged.status, 401);
      assert.ok(!output.includes('user.deleted'));
    });
  });
});
