/**
 * Races on the catalogue between two service processes over one database, on each store (a SQLite
 * file two processes share, and PostgreSQL): a client-chosen id taken once, and a product deleted
 * while subscriptions are created against it leaving no reference dangling, whether unknown
 * products are registered or (STRICT_REFERENCES) refused.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createUser, subscriptionDocument } from '../support/fixtures.js';
import { createTestSchema, postgresSkipReason, type TestSchema } from '../support/postgres.js';
import { startProcess, type ServiceProcess } from '../support/process.js';
import type { Client } from '../support/service.js';

const dir = mkdtempSync(join(tmpdir(), 'circulation-races-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const product = (id: string) => ({ product: { data: { type: 'products', id } } });

for (const kind of ['SQLite', 'PostgreSQL'] as const) {
  for (const strict of [false, true]) {
    const mode = strict ? 'strict references' : 'registering references';
    describe(
      `two processes on one ${kind} database, ${mode}`,
      { skip: kind === 'PostgreSQL' && postgresSkipReason },
      () => {
        let schema: TestSchema | undefined;
        let a: ServiceProcess;
        let b: ServiceProcess;
        let both: [Client, Client];

        before(async () => {
          schema = kind === 'PostgreSQL' ? await createTestSchema() : undefined;
          const env = {
            DATABASE_URL: schema?.url ?? `sqlite:${join(dir, `${strict ? 'strict' : 'registering'}.db`)}`,
            STRICT_REFERENCES: String(strict),
            // Two processes writing one file wait for each other's locks.
            SQLITE_BUSY_TIMEOUT_MS: '5000',
          };
          a = await startProcess(env);
          b = await startProcess(env);
          both = [a.client, b.client];
        });
        after(async () => {
          await Promise.all([a?.stop(), b?.stop()]);
          await schema?.drop();
        });

        it('answer one 201 and 409s to fifty creates of one id through both', async () => {
          const id = `raced-${process.pid}`;
          const responses = await Promise.all(
            Array.from({ length: 50 }, (_, i) =>
              both[i % 2]!.post('/products', { data: { type: 'products', id, attributes: { name: 'Raced' } } }),
            ),
          );
          assert.deepEqual(responses.map((r) => r.status).sort(), [201, ...Array(49).fill(409)]);
        });

        it('leave no subscription naming a product deleted while subscriptions to it are created', async () => {
          for (let round = 0; round < 5; round += 1) {
            const id = `contested-${process.pid}-${round}`;
            await a.client.post('/products', { data: { type: 'products', id, attributes: { name: 'Contested' } } });
            const users = await Promise.all([createUser(a.client), createUser(b.client)]);
            const responses = await Promise.all([
              ...Array.from({ length: 10 }, (_, i) =>
                both[i % 2]!.post(`/users/${users[i % 2]}/subscriptions`, subscriptionDocument({}, product(id))),
              ),
              b.client.delete(`/products/${id}`),
              a.client.delete(`/products/${id}`),
            ]);
            for (const response of responses) {
              assert.ok([201, 204, 404, 409, 422].includes(response.status), response.text);
              if (response.status === 422) assert.equal(response.body.errors[0].code, 'UNKNOWN_REFERENCE');
              if (response.status === 409) assert.equal(response.body.errors[0].code, 'STILL_REFERENCED');
            }
            for (const user of users) {
              for (const s of (await a.client.get(`/users/${user}/subscriptions`)).body.data) {
                const named = s.relationships.product.data.id;
                assert.equal((await b.client.get(`/products/${named}`)).status, 200, `${named} is gone`);
              }
            }
          }
        });
      },
    );
  }
}
