/**
 * GET /reports/subscriptions: the dashboard's counts, active subscriptions now by what they give
 * and by product, and the subscriptions started and ended in each of the last 12 ISO weeks.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createUser, issueKey, onlyError, subscriptionDocument } from '../../support/fixtures.js';
import { startService, type Service } from '../../support/service.js';
import { forEachStore } from '../../support/stores.js';

const DAY = 86_400_000;

/** An instant as the API writes it. */
const at = (ms: number) => new Date(ms).toISOString().slice(0, 19) + '+00:00';

forEachStore((kind) => {
  let service: Service;
  before(async () => {
    service = await startService(kind);
  });
  after(() => service.close());

  const subscribe = async (userId: string, attributes: Record<string, unknown>, product?: string) => {
    const relationships = product === undefined ? undefined : { product: { data: { type: 'products', id: product } } };
    const response = await service.client.post(
      `/users/${userId}/subscriptions`,
      subscriptionDocument(attributes, relationships),
    );
    assert.equal(response.status, 201, response.text);
  };

  const report = async () => {
    const response = await service.client.get('/reports/subscriptions');
    assert.equal(response.status, 200, response.text);
    return response.body.data;
  };

  describe('GET /reports/subscriptions', () => {
    it('counts the subscriptions active now by what they give (their own resource or their product’s) and by product', async () => {
      const created = await service.client.post('/products', {
        data: { type: 'products', id: 'paper', attributes: { name: 'Paper', resource: 'print' } },
      });
      assert.equal(created.status, 201, created.text);
      const user = await createUser(service.client);
      const running = { dateStarted: '2025-01-01T00:00:00+00:00', dateEnded: null };
      await subscribe(user, { ...running, resource: 'online' });
      await subscribe(user, { ...running, resource: null }, 'paper');
      await subscribe(user, { ...running, resource: 'print-online' }, 'paper');
      await subscribe(user, { ...running, resource: null });
      await subscribe(user, { dateStarted: '2025-01-01T00:00:00+00:00', dateEnded: '2026-01-01T00:00:00+00:00' });
      await subscribe(user, { dateStarted: at(Date.now() + 30 * DAY), dateEnded: null }, 'paper');
      const { type, id, attributes } = await report();
      assert.equal(type, 'subscription-reports');
      assert.equal(id, 'current');
      assert.deepEqual(attributes.activeByResource, [
        { resource: 'online', count: 1 },
        { resource: 'print', count: 1 },
        { resource: 'print-online', count: 1 },
        { resource: null, count: 1 },
      ]);
      assert.deepEqual(attributes.activeByProduct, [
        { product: 'paper', count: 2 },
        { product: null, count: 2 },
      ]);
    });

    it('counts the subscriptions started and ended in each of the last 12 ISO weeks, oldest first', async () => {
      const before = (await report()).attributes.weeks;
      assert.equal(before.length, 12);
      const mondays = before.map((w: any) => Date.parse(w.from));
      assert.ok(mondays.every((m: number) => new Date(m).getUTCDay() === 1 && m % DAY === 0));
      assert.ok(mondays.every((m: number, i: number) => i === 0 || m - mondays[i - 1] === 7 * DAY));
      assert.ok(Date.now() - mondays[11] < 7 * DAY);
      const user = await createUser(service.client);
      // Started in the second week shown, ended in the one before this; and one started before the first.
      await subscribe(user, { dateStarted: at(mondays[1] + DAY), dateEnded: at(mondays[10] + 2 * DAY) });
      await subscribe(user, { dateStarted: at(mondays[0] - DAY), dateEnded: at(mondays[0] + DAY) });
      const weeks = (await report()).attributes.weeks;
      const delta = weeks.map((w: any, i: number) => [w.started - before[i].started, w.ended - before[i].ended]);
      const expected = weeks.map(() => [0, 0]);
      expected[1] = [1, 0];
      expected[0] = [0, 1];
      expected[10] = [0, 1];
      assert.deepEqual(delta, expected);
    });

    it('answers from the counts it last read while they are younger than REPORT_MAX_AGE_SECONDS', async () => {
      const kept = await startService(kind, { reportMaxAgeSeconds: 3600 });
      try {
        const read = async () => (await kept.client.get('/reports/subscriptions')).body.data.attributes;
        const first = await read();
        const userId = await createUser(kept.client);
        const active = { dateStarted: at(Date.now() - DAY), dateEnded: null, resource: 'online' };
        const created = await kept.client.post(`/users/${userId}/subscriptions`, subscriptionDocument(active));
        assert.equal(created.status, 201, created.text);
        assert.deepEqual(await read(), first);
      } finally {
        await kept.close();
      }
    });

    it('is open to a read credential, and refuses a parameter it does not take with 400', async () => {
      const reader = service.client.as((await issueKey(service.client, ['read'])).secret);
      assert.equal((await reader.get('/reports/subscriptions')).status, 200);
      const error = onlyError(await reader.get('/reports/subscriptions?filter[product]=paper'), 400);
      assert.deepEqual(error.source, { parameter: 'filter[product]' });
    });
  });
});
