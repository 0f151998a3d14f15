/**
 * Staff accounts as an operator meets them: `circulation staff create` prints a password once,
 * which signs in; `staff list` shows the accounts; `staff disable` ends the account's sessions.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sessionIdHash, signInStaff } from '../../src/staff/sessions.js';
import { uniqueEmail } from '../support/fixtures.js';
import { runCommand } from '../support/process.js';
import { forEachStore, openTestStore, type TestStore } from '../support/stores.js';

const LIMITS = { maxAttempts: 10, windowSeconds: 900 };

const staff = (databaseUrl: string, ...args: string[]) => runCommand(databaseUrl, 'staff', ...args);

forEachStore((kind) => {
  let store: TestStore;
  before(async () => {
    store = await openTestStore(kind);
  });
  after(() => store.close());

  describe('circulation staff', () => {
    it('creates an account whose printed password signs in, lists it, and disables it, ending its sessions', async () => {
      const email = uniqueEmail('staff.example.com');
      const created = staff(store.databaseUrl, 'create', '--email', email, '--name', 'Ada Admin', '--role', 'admin');
      assert.equal(created.status, 0, created.stderr);
      const id = /created staff member (\d+)/.exec(created.stdout)?.[1] as string;
      const password = /shown only this once:\n\n {2}(\S+)\n/.exec(created.stdout)?.[1] as string;
      assert.ok(id && password, created.stdout);

      const now = Math.floor(Date.now() / 1000);
      const signedIn = await signInStaff(store.store, { email, password, network: '127.0.0.1' }, LIMITS, now, Infinity);
      assert.equal(signedIn.outcome, 'signed-in');
      const idHash = sessionIdHash((signedIn as { sessionId: string }).sessionId);

      const listed = staff(store.databaseUrl, 'list');
      assert.match(
        listed.stdout,
        new RegExp(`^${id}\\s+${email.replace(/\./g, '\\.')}\\s+Ada Admin\\s+admin\\s+\\S+\\s+active$`, 'm'),
      );

      const disabled = staff(store.databaseUrl, 'disable', id);
      assert.equal(disabled.status, 0, disabled.stderr);
      assert.equal(
        await store.store.resumeStaffSession(idHash, now, { seenAfter: now - 60, begunAfter: now - 3600 }),
        undefined,
      );
      assert.match(staff(store.databaseUrl, 'list').stdout, new RegExp(`^${id}\\s.*disabled \\S+$`, 'm'));
    });

    it('refuses an unknown role and a taken email, saying why', () => {
      const role = staff(store.databaseUrl, 'create', '--email', uniqueEmail(), '--name', 'X', '--role', 'boss');
      assert.notEqual(role.status, 0);
      assert.match(role.stderr, /--role, one of agent, supervisor, admin/);
      const email = uniqueEmail();
      assert.equal(staff(store.databaseUrl, 'create', '--email', email, '--name', 'X', '--role', 'agent').status, 0);
      const twice = staff(
        store.databaseUrl,
        'create',
        '--email',
        email.toUpperCase(),
        '--name',
        'Y',
        '--role',
        'agent',
      );
      assert.notEqual(twice.status, 0);
      assert.match(twice.stderr, /already exists/);
    });
  });
});
