/**
 * A failed sign-in takes as long whether the email is unknown, names a reader without a
 * password, or the password is wrong: nobody can learn from the clock which emails exist. The
 * requests are many and interleaved, and compared round by round through the median of their
 * ratios, so that a loaded machine slows every kind alike.
 *
 * A reader brought with a bcrypt hash costs more to verify than the dummy an unknown email is
 * verified against (cost 10 some three times as much, 14 fifty times), which only the failure
 * floor (SIGN_IN_FAILURE_FLOOR_MS) hides: every failure, a reader's or a staff member's, answers
 * no sooner than the floor after it began, and no success waits for it.
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { hash as bcryptHash } from 'bcrypt';
import { createUser, uniqueEmail } from '../../support/fixtures.js';
import { createReader, readerSettings, signIn } from '../../support/readers.js';
import { startService, type Service } from '../../support/service.js';
import { createStaff, staffSignIn, STAFF_PASSWORD } from '../../support/staff.js';
import { forEachStore } from '../../support/stores.js';

const ROUNDS = 61;
const TOLERANCE = 0.2;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

forEachStore((kind) => {
  let service: Service;
  before(async () => {
    // A throttle that never answers first: this test is about the time of the verification.
    service = await startService(kind, readerSettings({ maxAttempts: 10_000 }));
  });
  after(() => service.close());

  it('answers an unknown email, a reader without a password and a wrong password in the same time (medians within 20%)', async () => {
    const reader = await createReader(service.client);
    const withoutPassword = uniqueEmail();
    await createUser(service.client, { email: withoutPassword });
    const kinds = {
      'a wrong password': () => reader.email,
      'an unknown email': () => uniqueEmail(),
      'a reader without a password': () => withoutPassword,
    };
    const names = Object.keys(kinds) as (keyof typeof kinds)[];
    const time = async (email: string) => {
      const started = performance.now();
      const response = await signIn(service.client, email, 'a wrong password');
      const elapsed = performance.now() - started;
      assert.equal(response.status, 422, response.text);
      return elapsed;
    };
    // Each round times every kind once, in an order that turns with the round; its times are
    // compared with that round's wrong password, so that load (which comes and goes in seconds
    // on a shared machine) slows both sides of each comparison alike. The first rounds warm up.
    const ratios: Record<string, number[]> = Object.fromEntries(names.map((name) => [name, []]));
    const times: Record<string, number[]> = Object.fromEntries(names.map((name) => [name, []]));
    for (let round = -3; round < ROUNDS; round += 1) {
      const elapsed: Record<string, number> = {};
      for (let i = 0; i < names.length; i += 1) {
        const name = names[(i + round + 3) % names.length]!;
        elapsed[name] = await time(kinds[name]());
      }
      if (round < 0) continue;
      for (const name of names) {
        ratios[name]!.push(elapsed[name]! / elapsed['a wrong password']!);
        times[name]!.push(elapsed[name]!);
      }
    }
    const medians = Object.fromEntries(names.map((name) => [name, Math.round(median(times[name]!) * 10) / 10]));
    for (const name of names.filter((n) => n !== 'a wrong password')) {
      const ratio = median(ratios[name]!);
      assert.ok(
        Math.abs(ratio - 1) <= TOLERANCE,
        `${name} takes ${ratio.toFixed(2)} times as long as a wrong password (median of ${ROUNDS} rounds); medians in ms: ${JSON.stringify(medians)}`,
      );
    }
  });
});

/**
 * Well above a bcrypt verification of cost 10 (some 60 ms idle, four times that on a machine
 * busy with other tests), so that the floor, not the hash, sets the time; lower than the default
 * so that the test stays short.
 */
const FLOOR_MS = 500;
const FLOOR_ROUNDS = 15;
const BCRYPT_PASSWORD = 'imported with bcrypt 10';

forEachStore((kind) => {
  let service: Service;
  before(async () => {
    service = await startService(kind, readerSettings({ maxAttempts: 10_000, failureFloorMs: FLOOR_MS }));
  });
  after(() => service.close());

  const timed = async (request: () => Promise<{ status: number; text: string }>, status: number) => {
    const started = performance.now();
    const response = await request();
    const elapsed = performance.now() - started;
    assert.equal(response.status, status, response.text);
    return elapsed;
  };

  it('answers a wrong password of a reader with a bcrypt hash as an unknown email (medians within 20%)', async () => {
    const email = uniqueEmail();
    await createUser(service.client, { email, passwordHash: await bcryptHash(BCRYPT_PASSWORD, 10) });
    const kinds = [() => email, () => uniqueEmail()];
    const ratios: number[] = [];
    const times: number[][] = [[], []];
    for (let round = -2; round < FLOOR_ROUNDS; round += 1) {
      const elapsed = [0, 0];
      for (const i of round % 2 === 0 ? [0, 1] : [1, 0]) {
        elapsed[i] = await timed(() => signIn(service.client, kinds[i]!(), 'a wrong password'), 422);
      }
      if (round < 0) continue;
      ratios.push(elapsed[0]! / elapsed[1]!);
      times[0]!.push(elapsed[0]!);
      times[1]!.push(elapsed[1]!);
    }
    const ratio = median(ratios);
    assert.ok(
      Math.abs(ratio - 1) <= TOLERANCE,
      `a bcrypt reader's wrong password takes ${ratio.toFixed(2)} times as long as an unknown email (median of ${FLOOR_ROUNDS} rounds); medians in ms: ${median(times[0]!).toFixed(1)}, ${median(times[1]!).toFixed(1)}`,
    );
  });

  it("makes every failure, a reader's and a staff member's, wait for the floor, and no success", async () => {
    const reader = await createReader(service.client);
    const imported = uniqueEmail();
    await createUser(service.client, { email: imported, passwordHash: await bcryptHash(BCRYPT_PASSWORD, 10) });
    const staff = await createStaff(service.client, 'agent');
    const failures = {
      "a reader's wrong password": () => signIn(service.client, reader.email, 'a wrong password'),
      "a bcrypt reader's wrong password": () => signIn(service.client, imported, 'a wrong password'),
      'an unknown reader': () => signIn(service.client, uniqueEmail(), 'a wrong password'),
      "a staff member's wrong password": () => staffSignIn(service.client, staff.email, 'a wrong password'),
      'an unknown staff member': () => staffSignIn(service.client, uniqueEmail('staff.example.com'), STAFF_PASSWORD),
    };
    for (const [name, request] of Object.entries(failures)) {
      for (let i = 0; i < 3; i += 1) {
        const elapsed = await timed(request, 422);
        // A lower bound holds however busy the machine: the service waited at least this long.
        assert.ok(
          elapsed >= FLOOR_MS,
          `${name} answered after ${elapsed.toFixed(1)} ms, before the ${FLOOR_MS} ms floor`,
        );
      }
    }
    const successes = {
      'a reader signing in': () => signIn(service.client, reader.email, reader.password),
      'a staff member signing in': () => staffSignIn(service.client, staff.email, STAFF_PASSWORD),
    };
    for (const [name, request] of Object.entries(successes)) {
      const times: number[] = [];
      for (let i = 0; i < 5; i += 1) times.push(await timed(request, 201));
      assert.ok(
        median(times) < FLOOR_MS * 0.8,
        `${name} took ${median(times).toFixed(1)} ms (median of 5): a success waited for the floor`,
      );
    }
  });
});
