/**
 * The console sign-ins checked at once: at most a few per client network and a few more in all,
 * the last of them kept for known devices, each place given back when its check ends.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  SignInBudget,
  STAFF_SIGN_INS_IN_ALL,
  STAFF_SIGN_INS_KEPT_FOR_KNOWN_DEVICES,
  STAFF_SIGN_INS_PER_NETWORK,
} from '../../../src/use-cases/staff/sign-in-budget.js';

describe('SignInBudget', () => {
  it('takes a network up to its limit, and refuses the next from it', () => {
    const budget = new SignInBudget(2, 8, 0);
    assert.equal(budget.take('192.0.2.1'), 'taken');
    assert.equal(budget.take('192.0.2.1'), 'taken');
    assert.equal(budget.take('192.0.2.1'), 'network-full');
    assert.equal(budget.checking, 2);
  });

  it('refuses every network once the total is reached, naming the total', () => {
    const budget = new SignInBudget(2, 3, 0);
    assert.equal(budget.take('192.0.2.1'), 'taken');
    assert.equal(budget.take('192.0.2.2'), 'taken');
    assert.equal(budget.take('192.0.2.3'), 'taken');
    assert.equal(budget.take('192.0.2.4'), 'all-full');
    assert.equal(budget.checking, 3);
  });

  it("gives a place back to the network whose check ended, and to no other network's count", () => {
    const budget = new SignInBudget(1, 2, 0);
    assert.equal(budget.take('192.0.2.1'), 'taken');
    assert.equal(budget.take('192.0.2.2'), 'taken');
    budget.release('192.0.2.1');
    assert.equal(budget.take('192.0.2.2'), 'network-full');
    assert.equal(budget.take('192.0.2.1'), 'taken');
  });

  it('keeps no count of a network once its checks have all ended', () => {
    const budget = new SignInBudget(1, 1, 0);
    budget.take('192.0.2.1');
    budget.release('192.0.2.1');
    budget.release('192.0.2.1');
    assert.equal(budget.checking, 0);
    assert.equal(budget.take('192.0.2.2'), 'taken');
  });

  it('keeps the last places of the total for known devices, which unknown clients cannot take', () => {
    const budget = new SignInBudget(2, 8, 2);
    for (const network of ['192.0.2.1', '192.0.2.2', '192.0.2.3']) {
      assert.equal(budget.take(network), 'taken');
      assert.equal(budget.take(network), 'taken');
    }
    assert.equal(budget.take('192.0.2.4'), 'all-full');
    assert.equal(budget.take('192.0.2.4', true), 'taken');
    assert.equal(budget.take('192.0.2.4', true), 'taken');
    assert.equal(budget.take('192.0.2.5', true), 'all-full');
    assert.equal(budget.checking, 8);
  });

  it("holds a known device to the total, not to its network's share", () => {
    const budget = new SignInBudget(2, 8, 2);
    budget.take('192.0.2.1');
    budget.take('192.0.2.1');
    assert.equal(budget.take('192.0.2.1'), 'network-full');
    assert.equal(budget.take('192.0.2.1', true), 'taken');
  });

  it('keeps by default some places for known devices, fewer than the total', () => {
    assert.ok(STAFF_SIGN_INS_KEPT_FOR_KNOWN_DEVICES >= 1);
    assert.ok(STAFF_SIGN_INS_KEPT_FOR_KNOWN_DEVICES + STAFF_SIGN_INS_PER_NETWORK <= STAFF_SIGN_INS_IN_ALL);
  });

  it('allows by default fewer per network than in all', () => {
    assert.ok(STAFF_SIGN_INS_PER_NETWORK >= 1 && STAFF_SIGN_INS_PER_NETWORK < STAFF_SIGN_INS_IN_ALL);
  });
});
