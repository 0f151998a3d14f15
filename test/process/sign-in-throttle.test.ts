/**
 * The sign-in throttle counts in the database: two service processes over one database, each
 * sent half of 20 wrong attempts for one email at once, count 20 between them, not fewer.
 */
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { createReader, signIn } from '../support/readers.js';
import { startProcess, type ServiceProcess } from '../support/process.js';
import type { Client } from '../support/service.js';
import { forEachStore, openTestStore, type TestStore } from '../support/stores.js';

const CONCURRENT = 20;

forEachStore((kind) => {
  describe('two service processes on one database', () => {
    let store: TestStore;
    const processes: ServiceProcess[] = [];

    /** Two processes with this throttle, and a reader with a password; answers their clients and the reader. */
    async function start(maxAttempts: number) {
      const env = { DATABASE_URL: store.databaseUrl, SIGN_IN_MAX_ATTEMPTS: String(maxAttempts) };
      const pair = await Promise.all([startProcess(env), startProcess(env)]);
      processes.push(...pair);
      const clients = pair.map((p) => p.client) as [Client, Client];
      return { clients, reader: await createReader(clients[0]) };
    }

    before(async () => {
      store = await openTestStore(kind);
    });
    afterEach(async () => {
      await Promise.all(processes.splice(0).map((p) => p.stop()));
    });
    after(() => store.close());

    it(`count ${CONCURRENT} wrong attempts sent at once through both, not fewer`, async () => {
      const { clients, reader } = await start(CONCURRENT + 10);
      const answers = await Promise.all(
        Array.from({ length: CONCURRENT }, (_, i) => signIn(clients[i % 2]!, reader.email, 'a wrong password')),
      );
      assert.deepEqual(new Set(answers.map((a) => a.status)), new Set([422]));
      const [row] = await store.sql('SELECT attempts FROM sign_in_attempts WHERE email_lower = ?', [reader.email]);
      assert.equal(Number(row?.attempts), CONCURRENT);
      // Exactly 10 more are let through, whichever process they reach.
      for (let i = 0; i < 10; i += 1) {
        assert.equal((await signIn(clients[(i + 1) % 2]!, reader.email, 'a wrong password')).status, 422, `${i}`);
      }
      assert.equal((await signIn(clients[0], reader.email, reader.password)).status, 429);
      assert.equal((await signIn(clients[1], reader.email, reader.password)).status, 429);
    });

    it(`let no more than the limit of ${CONCURRENT} attempts at once through, between them`, async () => {
      const { clients, reader } = await start(10);
      const answers = await Promise.all(
        Array.from({ length: CONCURRENT }, (_, i) => signIn(clients[i % 2]!, reader.email, 'a wrong password')),
      );
      assert.deepEqual(answers.map((a) => a.status).sort(), [...Array(10).fill(422), ...Array(10).fill(429)]);
    });
  });
});
