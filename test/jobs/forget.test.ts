/**
 * The job that forgets what has served its purpose: sign-in attempts whose window has passed
 * (they hold emails, and a console sign-in's an address too, under its `staff:` keys), password
 * reset tokens that have expired and console sessions idle or older than their lifetime, and
 * nothing still in use.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { forgetExpired } from '../../src/jobs/forget.js';
import { toUserFields } from '../../src/domain/user.js';
import { countStaffSignInAttempt, staffAttemptKeys } from '../../src/use-cases/staff/sign-in-attempts.js';
import { AUDIT, uniqueEmail } from '../support/fixtures.js';
import { forEachStore, openTestStore, type TestStore } from '../support/stores.js';

const WINDOW = 900;
const LIMITS = { maxAttempts: 1, windowSeconds: WINDOW };
const NOW = 2_000_000_000;
const IDLE = 1800;
const MAX_AGE = 12 * 3600;
const SESSIONS = { idleSeconds: IDLE, maxAgeSeconds: MAX_AGE };

forEachStore((kind) => {
  describe('forgetExpired', () => {
    let store: TestStore;
    before(async () => {
      store = await openTestStore(kind);
    });
    after(() => store.close());

    it('forgets passed windows of attempts and expired reset tokens, and keeps the rest', async () => {
      const [passed, current] = [uniqueEmail(), uniqueEmail()];
      await store.store.signIns.countAttempt(passed, NOW - WINDOW, LIMITS);
      await store.store.signIns.countAttempt(current, NOW - WINDOW + 1, LIMITS);
      // A console sign-in's counts, per email and network and per email, hold an email and an address too.
      const staffKeys = staffAttemptKeys(uniqueEmail(), '203.0.113.7');
      await countStaffSignInAttempt(store.store, staffKeys, NOW - WINDOW, LIMITS);
      const user = await store.store.users.create(
        { email: uniqueEmail(), passwordHash: null, fields: toUserFields({ familyName: 'Reader' }), newsletters: [] },
        AUDIT,
      );
      const token = (hash: string, expiresAt: number) =>
        store.store.passwordResets.createToken(
          { userId: user.id, tokenHash: Buffer.from(hash), createdAt: NOW - 3600, expiresAt },
          AUDIT,
        );
      await token('expired', NOW);
      await token('live', NOW + 1);
      const staff = await store.store.staff.create(
        { email: uniqueEmail(), name: 'Agent', role: 'agent', passwordHash: '$argon2id$x', createdAt: NOW },
        AUDIT,
      );
      const session = (hash: string, at: number) =>
        store.store.staff.createSession(
          { idHash: Buffer.from(hash), staffId: staff.id, now: at, attemptsKey: 'staff:none' },
          AUDIT,
        );
      await session('idle', NOW - IDLE);
      await session('in use', NOW - IDLE + 1);
      // Begun a lifetime ago and used until now: ended however much it was used.
      await session('too old', NOW - MAX_AGE);
      assert.ok(await store.store.staff.resumeSession(Buffer.from('too old'), NOW, { seenAfter: 0, begunAfter: 0 }));

      assert.deepEqual(await forgetExpired(store.store, WINDOW, NOW, SESSIONS), {
        attempts: 3,
        resetTokens: 1,
        staffSessions: 2,
      });
      const attempts = await store.sql('SELECT email_lower FROM sign_in_attempts');
      assert.deepEqual(
        attempts.map((r) => r.email_lower),
        [current],
      );
      assert.equal(await store.store.passwordResets.hasToken(user.id, Buffer.from('live'), NOW), true);
      const live = { seenAfter: NOW - IDLE, begunAfter: NOW - MAX_AGE };
      assert.ok(await store.store.staff.resumeSession(Buffer.from('in use'), NOW, live));
      assert.deepEqual(await forgetExpired(store.store, WINDOW, NOW, SESSIONS), {
        attempts: 0,
        resetTokens: 0,
        staffSessions: 0,
      });
    });
  });
});
