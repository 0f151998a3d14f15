/**
 * GET /users/{id}/subscriptions without include or fields[subscriptions] is written by the
 * database (store/sql/subscription-json.ts) and spliced into the document; with
 * fields[subscriptions] naming every field it takes the general path, field by field through the
 * response schema. Both must write the same bytes, for every attribute and status, the first and
 * last years a date may have, and every way the list is filtered, paged and sorted.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SubscriptionAttributes } from '../../../src/domain/subscription.js';
import { forEachStoreAndCitus } from '../../support/citus.js';
import { createUser } from '../../support/fixtures.js';
import { startService, type Service } from '../../support/service.js';

const EVERY_FIELD = [...Object.keys(SubscriptionAttributes.properties), 'product'].join(',');

const AWKWARD = 'Said "hi" \\ back\nline\ttab\u0001 \u2028 😀 é 漢字 0123';

forEachStoreAndCitus((kind) => {
  let service: Service;
  const tag = `${process.pid}${kind.length}`;
  const paper = `subs-paper-${tag}`;
  let userId = '';
  const ids: Record<string, string> = {};

  const now = Date.now();
  const inDays = (days: number) => new Date(now + days * 86_400_000).toISOString();

  before(async () => {
    service = await startService(kind);
    const { client } = service;
    const product = await client.post('/products', {
      data: { type: 'products', id: paper, attributes: { name: 'Paper', resource: 'print' } },
    });
    assert.equal(product.status, 201, product.text);
    userId = await createUser(client);
    const created = async (name: string, attributes: object, product?: string) => {
      const response = await client.post(`/users/${userId}/subscriptions`, {
        data: {
          type: 'subscriptions',
          attributes,
          ...(product ? { relationships: { product: { data: { type: 'products', id: product } } } } : {}),
        },
      });
      assert.equal(response.status, 201, response.text);
      ids[name] = response.body.data.id;
    };
    await created(
      'every',
      {
        dateStarted: inDays(-10),
        dateEnded: inDays(10),
        externalIdentifier: AWKWARD,
        license: 'site',
        resource: 'print',
        trial: true,
      },
      paper,
    );
    await created('minimal', { dateStarted: inDays(-1) });
    await created('ended', { dateStarted: inDays(-10), dateEnded: inDays(-1), resource: 'online' });
    await created('scheduled', { dateStarted: inDays(5), resource: 'print-online' });
    await created('far', { dateStarted: '0000-01-01T00:00:00+00:00', dateEnded: '9999-12-31T23:59:59+00:00' });
    await created('expired', { dateStarted: inDays(-3), dateEnded: inDays(30), license: 'free' });
    const expired = await client.put(`/users/${userId}/subscriptions/${ids.expired}/expire`);
    assert.equal(expired.status, 200, expired.text);
  });
  after(() => service.close());

  /** The `data` of a response, as the bytes it was sent in. */
  function dataBytes(text: string): string {
    return text.slice(text.indexOf(',"data":['));
  }

  /** GETs the list as it is and with every field named; asserts equal bytes and answers the ids listed. */
  async function bothPaths(query: string): Promise<string[]> {
    const path = `/users/${userId}/subscriptions`;
    const rendered = await service.client.get(`${path}?${query}`);
    const general = await service.client.get(`${path}?${query}&fields[subscriptions]=${EVERY_FIELD}`);
    assert.equal(rendered.status, 200, rendered.text);
    assert.equal(general.status, 200, general.text);
    assert.equal(dataBytes(rendered.text), dataBytes(general.text));
    return rendered.body.data.map((s: { id: string }) => s.id);
  }

  describe('GET /users/{id}/subscriptions written by the database', () => {
    it('writes every attribute, status and product as the general path does', async () => {
      const all = ['every', 'minimal', 'ended', 'scheduled', 'far', 'expired'].map((name) => ids[name]);
      assert.deepEqual(await bothPaths(''), all);
      const statuses = (await service.client.get(`/users/${userId}/subscriptions`)).body.data.map(
        (s: any) => s.attributes.status,
      );
      assert.deepEqual(statuses, ['active', 'active', 'ended', 'scheduled', 'active', 'expired']);
    });

    it('writes dates from the year 0000 to 9999 as the general path does', async () => {
      const far = (await service.client.get(`/users/${userId}/subscriptions?page[after]=${ids.scheduled}&page[size]=1`))
        .body.data[0];
      assert.equal(far.id, ids.far);
      assert.equal(far.attributes.dateStarted, '0000-01-01T00:00:00+00:00');
      assert.deepEqual(await bothPaths(`page[after]=${ids.scheduled}&page[size]=1`), [ids.far]);
    });

    it('writes the self link of each subscription under its user and the base URL of the request', async () => {
      const response = await service.client.get(`/users/${userId}/subscriptions?page[size]=1`);
      assert.equal(response.body.data[0].links.self, `${service.baseUrl}/users/${userId}/subscriptions/${ids.every}`);
      assert.ok(response.body.links.next);
    });

    it('answers 404 for a user that does not exist', async () => {
      assert.equal((await service.client.get('/users/987654321/subscriptions')).status, 404);
    });
  });

  describe('GET /users/{id}/subscriptions written by the database, however it is filtered, paged or sorted', () => {
    const variants: [string, string, string[]][] = [
      ['newest first', 'sort=-id', ['expired', 'far', 'scheduled', 'ended', 'minimal', 'every']],
      ['a page after an id (links.next)', 'page[size]=2', ['every', 'minimal']],
      ['filter[status]=active', 'filter[status]=active', ['every', 'minimal', 'far']],
      ['filter[status] of several', 'filter[status]=scheduled,ended,expired', ['ended', 'scheduled', 'expired']],
      ['filter[resource]', 'filter[resource]=print', ['every', 'scheduled']],
      ['filter[product]', `filter[product]=${paper}`, ['every']],
    ];
    for (const [name, query, expected] of variants) {
      it(`writes ${name} as the general path does`, async () => {
        assert.deepEqual(
          await bothPaths(query),
          expected.map((n) => ids[n]),
        );
      });
    }
  });
});
