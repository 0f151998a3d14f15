import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { actorOf } from '../../src/domain/audit.js';
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
});
