/**
 * The console's sign-in is the one password check anyone may ask for without a credential. A
 * flood of it from one address is refused beyond the few checked at once, before it costs a
 * hash: no more than two of it are checked at once, so a reader signing in through the website (a
 * credentialed request) waits behind two hashes at most. (What that costs in time is the
 * benchmark's to measure, not a test's.) Unknown
 * clients, from however many networks, cannot take the places kept for browsers that signed in
 * before (a signed known-device cookie), and a forged cookie is no way in.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  SignInBudget,
  STAFF_SIGN_INS_IN_ALL,
  STAFF_SIGN_INS_PER_NETWORK,
  STAFF_SIGN_INS_KEPT_FOR_KNOWN_DEVICES,
} from '../../../src/use-cases/staff/sign-in-budget.js';
import { createReader, signIn } from '../../support/readers.js';
import { startService, type Service } from '../../support/service.js';
import { createStaff, staffSignIn } from '../../support/staff.js';
import { onlyError } from '../../support/fixtures.js';
import { forEachStore } from '../../support/stores.js';

const FLOOD = 200;

/** The budget of the service, noting the most sign-ins it let be checked at once. */
class WatchedBudget extends SignInBudget {
  most = 0;

  override take(network: string, knownDevice = false) {
    const place = super.take(network, knownDevice);
    this.most = Math.max(this.most, this.checking);
    return place;
  }
}

forEachStore((kind) => {
  describe('a flood of console sign-ins with unknown emails from one address', () => {
    let service: Service;
    const budget = new WatchedBudget();
    before(async () => {
      service = await startService(kind, { staffSignInBudget: budget });
    });
    after(() => service.close());

    it('checks two of it at a time, refuses the rest with 429, and lets a reader sign in meanwhile', async () => {
      const reader = await createReader(service.client);
      const flood = Array.from({ length: FLOOD }, (_, i) =>
        staffSignIn(service.client, `flood-${i}-${kind.toLowerCase()}@staff.example.com`, 'a wrong password'),
      );
      const signedIn = await signIn(service.client, reader.email, reader.password);
      const answers = await Promise.all(flood);
      assert.equal(signedIn.status, 201, signedIn.text);
      assert.equal(budget.most, STAFF_SIGN_INS_PER_NETWORK, 'the most of the flood checked at once');
      const codes = answers.map((answer) => (answer.status === 422 ? 'checked' : answer.body?.errors?.[0]?.code));
      const refused = answers.filter((answer) => answer.body?.errors?.[0]?.code === 'STAFF_SIGN_INS_FROM_NETWORK');
      assert.ok(refused.length > FLOOD / 2, `only ${refused.length} of the flood refused: ${[...new Set(codes)]}`);
      for (const answer of refused) {
        assert.equal(answer.status, 429);
        assert.equal(answer.headers.get('retry-after'), '1');
      }
      assert.deepEqual(
        codes.filter((code) => !['checked', 'STAFF_SIGN_INS_FROM_NETWORK', 'RATE_LIMITED'].includes(code)),
        [],
      );
    });
  });
  describe('console sign-ins while unknown clients hold every place they may', () => {
    let service: Service;
    const budget = new SignInBudget();
    const held: string[] = [];
    before(async () => {
      service = await startService(kind, { staffSignInBudget: budget });
    });
    after(async () => {
      for (const network of held.splice(0)) budget.release(network);
      await service.close();
    });

    /** Four networks, two sign-ins each, all being checked: as many as unknown clients are let hold. */
    const flood = () => {
      for (const network of ['192.0.2.1', '192.0.2.2', '192.0.2.3', '192.0.2.4']) {
        for (let i = 0; i < 2; i += 1) if (budget.take(network) === 'taken') held.push(network);
      }
    };
    const ebb = () => {
      for (const network of held.splice(0)) budget.release(network);
    };
    const signInWith = (email: string, password: string, cookie?: string) =>
      service.client
        .as(null)
        .post(
          '/staff-sessions',
          { data: { type: 'staff-sessions', attributes: { email, password } } },
          cookie === undefined ? {} : { headers: { cookie } },
        );
    /** The device cookie (name=value) a successful sign-in set. */
    const deviceCookieOf = (response: Awaited<ReturnType<typeof signInWith>>) => {
      const cookie = response.headers.getSetCookie().find((c) => c.startsWith('circulation_device='));
      assert.ok(cookie, `no device cookie in ${response.headers.getSetCookie()}`);
      assert.match(cookie, /; HttpOnly; SameSite=Strict/);
      return cookie.split(';')[0] as string;
    };

    it('lets a device that signed in before through, and no unknown client', async () => {
      const staff = await createStaff(service.client, 'agent');
      const first = await signInWith(staff.email, staff.password);
      assert.equal(first.status, 201, first.text);
      const device = deviceCookieOf(first);
      flood();
      try {
        assert.equal(held.length, STAFF_SIGN_INS_IN_ALL - STAFF_SIGN_INS_KEPT_FOR_KNOWN_DEVICES);
        const unknown = await signInWith(staff.email, staff.password);
        assert.equal(onlyError(unknown, 503).code, 'STAFF_SIGN_INS_BUSY');
        const known = await signInWith(staff.email, staff.password, device);
        assert.equal(known.status, 201, known.text);
      } finally {
        ebb();
      }
    });

    it('believes no forged device cookie, nor one set for another email', async () => {
      const staff = await createStaff(service.client, 'agent');
      const other = await createStaff(service.client, 'agent');
      const device = deviceCookieOf(await signInWith(other.email, other.password));
      const [name, value] = device.split('=') as [string, string];
      const [id, issuedAt, mac] = value.split('.') as [string, string, string];
      const forged = [
        `${name}=${id}.${issuedAt}.${mac.slice(0, -1)}${mac.endsWith('A') ? 'B' : 'A'}`,
        `${name}=${id}.${Number(issuedAt) + 1}.${mac}`,
        `${name}=${'A'.repeat(22)}.${issuedAt}.${mac}`,
        `${name}=not a device`,
        device,
      ];
      flood();
      try {
        for (const cookie of forged) {
          const refused = await signInWith(staff.email, staff.password, cookie);
          assert.equal(onlyError(refused, 503).code, 'STAFF_SIGN_INS_BUSY', cookie);
        }
      } finally {
        ebb();
      }
    });
  });
});
