/**
 * Staff accounts as an operator meets them: `circulation staff create` prints a password once,
 * which signs in; `staff list` shows the accounts; `staff disable` ends the account's sessions;
 * `staff reset-password` prints a new password once, for an operator locked out of the console,
 * and ends the account's sessions.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sessionIdHash, signInStaff } from '../../src/use-cases/staff/sessions.js';
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
        await store.store.staff.resumeSession(idHash, now, { seenAfter: now - 60, begunAfter: now - 3600 }),
        undefined,
      );
      assert.match(staff(store.databaseUrl, 'list').stdout, new RegExp(`^${id}\\s.*disabled \\S+$`, 'm'));
    });

    it('resets a password, printing a new one once that signs in, and ends every session of theirs', async () => {
      const email = uniqueEmail('staff.example.com');
      const created = staff(store.databaseUrl, 'create', '--email', email, '--name', 'Locked Out', '--role', 'admin');
      assert.equal(created.status, 0, created.stderr);
      const id = /created staff member (\d+)/.exec(created.stdout)?.[1] as string;
      const first = /shown only this once:\n\n {2}(\S+)\n/.exec(created.stdout)?.[1] as string;
      const now = Math.floor(Date.now() / 1000);
      const signIn = (password: string) =>
        signInStaff(store.store, { email, password, network: '127.0.0.1' }, LIMITS, now, Infinity);
      const signedIn = await signIn(first);
      assert.equal(signedIn.outcome, 'signed-in');
      const idHash = sessionIdHash((signedIn as { sessionId: string }).sessionId);

      const reset = staff(store.databaseUrl, 'reset-password', '--email', email.toUpperCase());
      assert.equal(reset.status, 0, reset.stderr);
      assert.match(reset.stdout, new RegExp(`reset the password of staff member ${id} `));
      const second = /shown only this once:\n\n {2}(\S+)\n/.exec(reset.stdout)?.[1] as string;
      assert.ok(second && second !== first && second.length >= 20, reset.stdout);

      const live = { seenAfter: now - 60, begunAfter: now - 3600 };
      assert.equal(await store.store.staff.resumeSession(idHash, now, live), undefined);
      assert.equal((await signIn(second)).outcome, 'signed-in');
      assert.equal((await signIn(first)).outcome, 'invalid');
      const [entry] = await store.sql(
        "SELECT actor, attributes FROM audit_log WHERE resource_type = 'staff' AND resource_id = ? AND action = 'update'",
        [id],
      );
      assert.equal(entry?.actor, 'cli');
      assert.match(JSON.stringify(entry?.attributes), /password/);
      assert.ok(!JSON.stringify(entry).includes(second));
    });

    it("lifts a lockout with the reset: from the networks that guessed and past the email's ceiling", async () => {
      const email = uniqueEmail('staff.example.com');
      const created = staff(store.databaseUrl, 'create', '--email', email, '--name', 'Locked Out', '--role', 'agent');
      assert.equal(created.status, 0, created.stderr);
      const limits = { maxAttempts: 2, windowSeconds: 900 };
      const now = Math.floor(Date.now() / 1000);
      const signIn = (password: string, network: string) =>
        signInStaff(store.store, { email, password, network }, limits, now, Infinity);
      // Two guesses from each of ten networks: every pair locked, and the email's ceiling (ten times two) reached.
      for (let n = 1; n <= 10; n += 1) {
        for (let i = 0; i < limits.maxAttempts; i += 1)
          assert.equal((await signIn('a guess', `10.0.0.${n}`)).outcome, 'invalid');
      }
      assert.equal((await signIn('a guess', '10.0.1.1')).outcome, 'throttled');

      const reset = staff(store.databaseUrl, 'reset-password', '--email', email);
      assert.equal(reset.status, 0, reset.stderr);
      const password = /shown only this once:\n\n {2}(\S+)\n/.exec(reset.stdout)?.[1] as string;
      assert.equal((await signIn(password, '10.0.0.1')).outcome, 'signed-in');
      assert.equal((await signIn(password, '10.0.1.1')).outcome, 'signed-in');
    });

    it('refuses to reset the password of an email that names no staff member, saying so', () => {
      const refused = staff(store.databaseUrl, 'reset-password', '--email', uniqueEmail('staff.example.com'));
      assert.notEqual(refused.status, 0);
      assert.match(refused.stderr, /there is no staff member with the email/);
      const usage = staff(store.databaseUrl, 'reset-password');
      assert.notEqual(usage.status, 0);
      assert.match(usage.stderr, /needs --email/);
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
