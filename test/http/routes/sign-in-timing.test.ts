/**
 * A failed sign-in takes as long whether the email is unknown, names a reader without a
 * password, or the password is wrong: nobody can learn from the clock which emails exist. The
 * requests are many and interleaved, and compared round by round through the median of their
 * ratios, so that a loaded machine slows every kind alike.
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { createUser, uniqueEmail } from '../../support/fixtures.js';
import { createReader, readerSettings, signIn } from '../../support/readers.js';
import { startService, type Service } from '../../support/service.js';
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
