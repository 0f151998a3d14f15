/**
 * The rules of scheduled backups: names that sort as their UTC times, which go beyond the number
 * kept (and that no other file ever does), and when the next one is due.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { backupName, backupsBeyond, backupTime, nextBackupIn } from '../../src/backups/names.js';

const HOUR = 3600_000;

describe('backup names', () => {
  it('are the UTC time to the second, and read back as it', () => {
    const at = new Date('2025-03-01T02:00:09.750Z');
    assert.equal(backupName(at), 'circulation-20250301T020009Z.db');
    assert.equal(backupTime(backupName(at)), Date.parse('2025-03-01T02:00:09Z'));
  });

  it('belong to backups only: any other file has no time', () => {
    for (const name of [
      'notes.txt',
      'circulation.db',
      'circulation-20251301T000000Z.db',
      'circulation-20250301T020009Z.db-wal',
      '.circulation-20250301T020009Z.db.1.abcdefabcdef.tmp',
    ]) {
      assert.equal(backupTime(name), undefined, name);
    }
  });
});

describe('the backups beyond those kept', () => {
  const names = [
    'circulation-20250103T000000Z.db',
    'notes.txt',
    'circulation-20250101T000000Z.db',
    'circulation-20250102T000000Z.db',
  ];

  it('are the oldest, and never another file', () => {
    assert.deepEqual(backupsBeyond(names, 2), ['circulation-20250101T000000Z.db']);
    assert.deepEqual(backupsBeyond(names, 1), ['circulation-20250101T000000Z.db', 'circulation-20250102T000000Z.db']);
  });

  it('are none while no more are kept than asked', () => {
    assert.deepEqual(backupsBeyond(names, 3), []);
    assert.deepEqual(backupsBeyond([], 1), []);
  });
});

describe('the next backup', () => {
  const now = Date.parse('2025-01-02T12:00:00Z');

  it('is due at once with no backup in the folder', () => {
    assert.equal(nextBackupIn(['notes.txt'], now, 24 * HOUR), 0);
  });

  it('is due an interval after the newest', () => {
    assert.equal(
      nextBackupIn(['circulation-20250102T000000Z.db', 'circulation-20250101T000000Z.db'], now, 24 * HOUR),
      12 * HOUR,
    );
  });

  it('is due at once when the newest is older than the interval', () => {
    assert.equal(nextBackupIn(['circulation-20241230T000000Z.db'], now, 24 * HOUR), 0);
  });

  it('waits no more than an interval when the newest is from the future (a clock set back)', () => {
    assert.equal(nextBackupIn(['circulation-20300101T000000Z.db'], now, HOUR), HOUR);
  });
});
