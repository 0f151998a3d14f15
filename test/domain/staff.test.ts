/**
 * Staff on their own: a role is a set of the credentials' scopes, and a staff member's names in the
 * audit trail and the sign-in throttle are kept apart from every credential's and reader's.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { allows, SCOPES } from '../../src/domain/api-key.js';
import { actorOf } from '../../src/domain/audit.js';
import { ROLE_SCOPES, staffActor, staffAttemptsKey } from '../../src/domain/staff.js';

describe('roles', () => {
  it('grow from agent to supervisor to admin, each allowing what the one before does', () => {
    const allowed = (role: keyof typeof ROLE_SCOPES) => SCOPES.filter((s) => allows(ROLE_SCOPES[role], s));
    assert.deepEqual(allowed('agent'), ['read', 'write']);
    assert.deepEqual(allowed('supervisor'), ['read', 'write', 'catalogue']);
    assert.deepEqual(allowed('admin'), [...SCOPES]);
  });
});

describe('staffActor', () => {
  it('names a staff member in the audit trail as staff:<id>, which reads back as them', () => {
    assert.equal(staffActor('4'), 'staff:4');
    assert.deepEqual(actorOf(staffActor('4')), { type: 'staff', id: '4' });
  });
});

describe('staffAttemptsKey', () => {
  it('counts an email in any case as one, under a key no reader’s bare email can be', () => {
    assert.equal(staffAttemptsKey('Ann@Example.COM'), 'staff:ann@example.com');
    assert.equal(staffAttemptsKey('ann@example.com'), staffAttemptsKey('ANN@EXAMPLE.COM'));
  });
});
