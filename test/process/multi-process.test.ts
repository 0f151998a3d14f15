/**
 * Several stateless service processes over one PostgreSQL database, driven concurrently: what
 * one process writes, the other sees, and no race between them loses or doubles anything. The
 * same on a Citus coordinator, where a user's row and its email's lookup row sit on different
 * shards.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  createProductSubscriber,
  createSubscription,
  createUser,
  issueKey,
  uniqueEmail,
  userDocument,
} from '../support/fixtures.js';
import { citusSkipReason, CITUS_URL } from '../support/citus.js';
import {
  createTestSchema,
  postgresSkipReason,
  statementOn,
  TEST_DATABASE_URL,
  type TestSchema,
} from '../support/postgres.js';
import { startProcess, type ServiceProcess } from '../support/process.js';
import { eventually } from '../support/eventually.js';
import { CREDENTIAL_MAX_AGE_MS } from '../../src/store/postgres/credentials.js';
import { PRODUCT_RESOURCE_MAX_AGE_MS } from '../../src/store/postgres/product-resources.js';
import type { Client } from '../support/service.js';

const SERVERS = [
  { name: 'PostgreSQL', skip: postgresSkipReason, url: TEST_DATABASE_URL },
  { name: 'Citus', skip: citusSkipReason, url: CITUS_URL as string },
];

for (const server of SERVERS)
  describe(`two service processes on one ${server.name} database`, { skip: server.skip }, () => {
    let schema: TestSchema;
    let a: ServiceProcess;
    let b: ServiceProcess;
    /** The two clients, to alternate requests between the processes. */
    let both: [Client, Client];

    before(async () => {
      schema = await createTestSchema(server.url);
      // Started together: both run the migrations, and the advisory lock lets one of them do it.
      const started = await Promise.allSettled([
        startProcess({ DATABASE_URL: schema.url }),
        startProcess({ DATABASE_URL: schema.url }),
      ]);
      // One that failed to start must not leave the other running, holding the file open.
      const running = started.flatMap((outcome) => (outcome.status === 'fulfilled' ? [outcome.value] : []));
      const failed = started.find((outcome) => outcome.status === 'rejected');
      if (failed) {
        await Promise.all(running.map((process) => process.stop()));
        throw failed.reason;
      }
      [a, b] = running as [ServiceProcess, ServiceProcess];
      both = [a.client, b.client];
    });
    after(async () => {
      await Promise.all([a?.stop(), b?.stop()]);
      await schema?.drop();
    });

    it('create users through both without colliding ids, each visible through the other', async () => {
      const responses = await Promise.all(
        Array.from({ length: 40 }, (_, i) => both[i % 2]!.post('/users', userDocument())),
      );
      assert.ok(responses.every((r) => r.status === 201));
      const ids = responses.map((r) => r.body.data.id);
      assert.equal(new Set(ids).size, 40);
      for (const [i, id] of ids.entries()) {
        assert.equal((await both[(i + 1) % 2]!.get(`/users/${id}`)).status, 200);
      }
    });

    it('yield exactly one user when the same email is raced through both', async () => {
      for (let round = 0; round < 10; round += 1) {
        const email = uniqueEmail();
        const statuses = (
          await Promise.all([
            a.client.post('/users', userDocument({ email })),
            b.client.post('/users', userDocument({ email: email.toUpperCase() })),
          ])
        ).map((r) => r.status);
        assert.deepEqual(statuses.sort(), [201, 422]);
        const found = await a.client.get(`/users?filter[email]=${encodeURIComponent(email)}`);
        assert.equal(found.body.data.length, 1);
      }
    });

    it('create one user and answer 422 EMAIL_TAKEN to the other 49 of 50 parallel creates of one email', async () => {
      const email = uniqueEmail();
      // Spellings that differ only in case are the same email.
      const spellings = [email, email.toUpperCase()];
      const responses = await Promise.all(
        Array.from({ length: 50 }, (_, i) => both[i % 2]!.post('/users', userDocument({ email: spellings[i % 2] }))),
      );
      const created = responses.filter((r) => r.status === 201);
      const refused = responses.filter((r) => r.status !== 201);
      assert.equal(created.length, 1, responses.map((r) => r.status).join(' '));
      assert.deepEqual(
        new Set(refused.map((r) => `${r.status} ${r.body.errors?.[0]?.code}`)),
        new Set(['422 EMAIL_TAKEN']),
      );
      assert.equal(refused.length, 49);
      const rows = await statementOn(schema.url, 'SELECT id::text FROM users WHERE email_lower = $1', [email]);
      assert.deepEqual(
        rows.map((r) => r.id),
        [created[0]!.body.data.id],
      );
    });

    it('apply every newsletter add and remove sent through both at once', async () => {
      const old = Array.from({ length: 20 }, (_, i) => `old-${String(i).padStart(2, '0')}`);
      const fresh = Array.from({ length: 20 }, (_, i) => `new-${String(i).padStart(2, '0')}`);
      const id = await createUser(a.client, { newsletters: { add: old } });
      const change = (i: number, attributes: object) =>
        both[i % 2]!.put(`/users/${id}`, { data: { type: 'users', id, attributes: { newsletters: attributes } } });
      const responses = await Promise.all([
        ...fresh.map((n, i) => change(i, { add: [n] })),
        ...old.map((n, i) => change(i + 1, { remove: [n] })),
      ]);
      assert.ok(
        responses.every((r) => r.status === 204),
        responses.map((r) => `${r.status} ${r.body?.errors?.[0]?.code ?? ''}`).join(', '),
      );
      assert.deepEqual((await b.client.get(`/users/${id}`)).body.data.attributes.newsletters, fresh);
    });

    it('refuse a credential revoked through one process in the other as soon as its notification arrives', async () => {
      const key = await issueKey(a.client, ['read']);
      for (let i = 0; i < 20; i += 1) assert.equal((await b.client.as(key.secret).get('/users')).status, 200);
      assert.equal((await a.client.delete(`/api-keys/${key.id}`)).status, 204);
      await eventually(
        async () => (await b.client.as(key.secret).get('/users')).status === 401,
        'the refusal within a fifth of the bound a lost notification could take',
        CREDENTIAL_MAX_AGE_MS / 5,
      );
    });

    it("give a product's changed default resource in the other's access check as soon as its notification arrives", async () => {
      const { product, userId } = await createProductSubscriber(a.client, 'print');
      const online = async (client: Client) =>
        (await client.get(`/users/${userId}/access`)).body.data.attributes.online;
      for (let i = 0; i < 20; i += 1) assert.equal(await online(b.client), false);
      const changed = await a.client.patch(`/products/${product}`, {
        data: { type: 'products', id: product, attributes: { resource: 'online' } },
      });
      assert.equal(changed.status, 200, changed.text);
      assert.equal(await online(a.client), true, 'the process that made the change');
      await eventually(
        () => online(b.client),
        'the change within a fifth of the bound a lost notification could take',
        PRODUCT_RESOURCE_MAX_AGE_MS / 5,
      );
    });

    it("answer 404 for a reader erased through one process in the other's access check as soon as its notification arrives", async () => {
      const userId = await createUser(a.client);
      const status = async (client: Client) => (await client.get(`/users/${userId}/access`)).status;
      for (let i = 0; i < 20; i += 1) assert.equal(await status(b.client), 200);
      assert.equal((await a.client.delete(`/users/${userId}`)).status, 204);
      assert.equal(await status(a.client), 404, 'the process that erased the reader');
      await eventually(
        async () => (await status(b.client)) === 404,
        'the erasure within a second, where a lost notification could take KNOWN_USER_MAX_AGE_MS',
        1000,
      );
    });

    it('forget a subscription deleted through one process in the other', async () => {
      const userId = await createUser(a.client);
      const id = await createSubscription(a.client, userId);
      assert.equal((await b.client.get(`/users/${userId}/subscriptions/${id}`)).status, 200);
      assert.equal((await a.client.delete(`/users/${userId}/subscriptions/${id}`)).status, 204);
      assert.equal((await b.client.get(`/users/${userId}/subscriptions/${id}`)).status, 404);
      assert.deepEqual((await b.client.get(`/users/${userId}/subscriptions`)).body.data, []);
    });

    it('keep list pages ordered and complete while the other process writes', async () => {
      for (let i = 0; i < 150; i += 1) await createUser(both[i % 2]!);
      const before = await allIds(a.client);
      let writing = true;
      const writer = (async () => {
        while (writing) await b.client.post('/users', userDocument());
      })();
      const seen = await allIds(a.client);
      writing = false;
      await writer;
      for (let i = 1; i < seen.length; i += 1) assert.ok(Number(seen[i]) > Number(seen[i - 1]), 'pages out of order');
      const seenSet = new Set(seen);
      assert.ok(
        before.every((id) => seenSet.has(id)),
        'a user that existed before paging began is missing',
      );
    });
  });

/** Every user id, by following links.next from the first page. */
async function allIds(client: Client): Promise<string[]> {
  const ids: string[] = [];
  let next: string | undefined = `${client.baseUrl}/users?page[size]=50`;
  while (next) {
    const page = await client.get(next.slice(client.baseUrl.length));
    ids.push(...page.body.data.map((u: { id: string }) => u.id));
    next = page.body.links.next;
  }
  return ids;
}
