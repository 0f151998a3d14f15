import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { actorOf, sentAttributeNames } from '../../src/domain/audit.js';
import { LAPSE_AUDIT } from '../../src/jobs/lapse.js';
import { COMMAND_LINE } from '../../src/cli/command.js';

describe('actorOf', () => {
  it('tells an API key, the admin key of the environment, a staff member and the system apart', () => {
    assert.deepEqual(actorOf('17'), { type: 'credentials', id: '17' });
    assert.deepEqual(actorOf('CIRCULATION_ADMIN_KEY'), { type: 'credentials', id: 'CIRCULATION_ADMIN_KEY' });
    assert.deepEqual(actorOf('staff:4'), { type: 'staff', id: '4' });
    for (const system of [COMMAND_LINE as string, LAPSE_AUDIT.actor, 'import', 'seed']) {
      assert.deepEqual(actorOf(system), { type: 'system', id: system });
    }
  });

  it('names no one for a change made without authentication', () => {
    assert.equal(actorOf(null), null);
  });

  it('takes as a credential only a whole key id of up to fifteen digits', () => {
    assert.deepEqual(actorOf('123456789012345'), { type: 'credentials', id: '123456789012345' });
    for (const system of ['0', '017', '1234567890123456', '17x', 'x17', 'CIRCULATION_ADMIN_KEYS']) {
      assert.deepEqual(actorOf(system), { type: 'system', id: system }, system);
    }
  });

  it('takes as a staff member only staff: and a whole id', () => {
    assert.deepEqual(actorOf('staff:123456789012345'), { type: 'staff', id: '123456789012345' });
    for (const system of ['staff:', 'staff:0', 'staff:1234567890123456', 'staff:4x', 'xstaff:4', 'Staff:4']) {
      assert.deepEqual(actorOf(system), { type: 'system', id: system }, system);
    }
  });
});

describe('sentAttributeNames', () => {
  it('names the attributes and relationships a write sent, sorted, never their values', () => {
    assert.deepEqual(sentAttributeNames({ password: 'secret', email: 'a@example.com' }, { product: { data: null } }), [
      'email',
      'password',
      'product',
    ]);
    assert.deepEqual(sentAttributeNames({ b: 1, a: 2 }), ['a', 'b']);
    assert.deepEqual(sentAttributeNames(undefined, { user: {} }), ['user']);
    assert.deepEqual(sentAttributeNames(undefined), []);
  });
});
