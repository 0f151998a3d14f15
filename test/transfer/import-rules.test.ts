/**
 * The rules of an import row, without a store: what a record gives once checked (a bad
 * subscription refuses that subscription, not the reader), and what a row changes of a reader
 * who is there (nothing, when it brings nothing new; never their email; their password only
 * when they have none, unless told to).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { toUserFields } from '../../src/domain/user.js';
import { checkRecord, type CheckedReader } from '../../src/transfer/import-check.js';
import { userChanges } from '../../src/transfer/import.js';
import type { MatchedUser } from '../../src/store/port.js';

const BCRYPT = '$2b$04$abcdefghijklmnopqrstuuJ1q4nGq5m0m6Gq5m0m6Gq5m0m6Gq5m0';

function reader(record: Record<string, unknown>): CheckedReader {
  const { reader } = checkRecord({ email: 'Ann@Example.com', familyName: 'Ames', ...record }, {});
  assert.ok(reader);
  return reader;
}

/** The reader as stored, as the row `record` would have created them. */
function stored(record: Record<string, unknown>, passwordHash: string | null = null): MatchedUser {
  const { attributes } = reader(record);
  return {
    user: {
      id: '1',
      email: 'ann@example.com',
      fields: toUserFields(attributes),
      newsletters: [...(attributes.newsletters?.add ?? [])].sort(),
      lastSignInAt: null,
      version: 1,
    },
    passwordHash,
    consents: new Map((attributes.newsletters?.add ?? []).map((n) => [n, 'subscribed' as const])),
  };
}

describe('checking an import record', () => {
  it('keeps a reader whose subscription is refused, refusing that subscription alone', () => {
    const checked = checkRecord(
      {
        email: 'ann@example.com',
        familyName: 'Ames',
        subscriptions: [
          { dateStarted: '2025-01-01' },
          { dateStarted: 'soon' },
          { dateStarted: '2025-02-01', license: 'gold' },
        ],
      },
      {},
    );
    assert.deepEqual(
      checked.reader?.subscriptions.map((s) => s.index),
      [0],
    );
    assert.equal(checked.refusedSubscriptions, 2);
    assert.deepEqual(
      checked.problems.map((p) => p.pointer),
      ['/subscriptions/1/dateStarted', '/subscriptions/2/license'],
    );
  });

  it('takes a missing, empty or spaces-only family name as the empty one only when told, and refuses anything else of it still', () => {
    for (const familyName of [undefined, '', '   ']) {
      const record = { email: 'ann@example.com', ...(familyName === undefined ? {} : { familyName }) };
      assert.deepEqual(checkRecord(record, {}).problems, [{ pointer: '/familyName', detail: "can't be blank" }]);
      const taken = checkRecord(record, { allowBlankFamilyName: true });
      assert.deepEqual([taken.reader?.attributes.familyName, taken.problems], ['', []]);
    }
    const long = checkRecord({ email: 'ann@example.com', familyName: 'x'.repeat(101) }, { allowBlankFamilyName: true });
    assert.deepEqual(
      long.problems.map((p) => p.pointer),
      ['/familyName'],
    );
  });

  it("refuses a site licence's terms on a subscription of no site licence, and a range it may not hold, that subscription alone", () => {
    const checked = checkRecord(
      {
        email: 'ann@example.com',
        familyName: 'Ames',
        subscriptions: [
          { dateStarted: '2025-01-01', ipRanges: ['10.0.0.0/8'] },
          { dateStarted: '2025-01-01', license: 'site', ipRanges: ['10.0.0.0/7'], emailDomains: ['Example.EDU'] },
          { dateStarted: '2025-01-01', license: 'site', ipRanges: ['10.0.0.1'], emailDomains: ['Example.EDU'] },
        ],
      },
      {},
    );
    assert.deepEqual(
      checked.problems.map((p) => p.pointer),
      ['/subscriptions/0/ipRanges', '/subscriptions/1/ipRanges/0'],
    );
    assert.deepEqual(
      checked.reader?.subscriptions.map((s) => [s.index, s.values.ipRanges, s.values.emailDomains]),
      [[2, ['10.0.0.1/32'], ['example.edu']]],
    );
  });

  it("refuses the row for a problem of the reader's, reporting its subscriptions' problems too", () => {
    const checked = checkRecord(
      { email: 'ann@example.com', familyName: '', subscriptions: [{ dateStarted: 'soon' }] },
      {},
    );
    assert.equal(checked.reader, undefined);
    assert.equal(checked.email, 'ann@example.com');
    assert.deepEqual(
      checked.problems.map((p) => p.pointer),
      ['/familyName', '/subscriptions/0/dateStarted'],
    );
  });

  it('says a date in an unnamed day/month order needs --date-format', () => {
    const checked = checkRecord(
      { email: 'a@example.com', familyName: 'A', subscriptions: [{ dateStarted: '03/15/2025' }] },
      {},
    );
    assert.match(checked.problems[0]?.detail ?? '', /only --date-format can say/);
  });

  it('names the attributes the record sets, as a request would be named in the audit trail', () => {
    assert.deepEqual(reader({ address: { addressLocality: 'Leeds' }, newsletters: ['daily'] }).names, [
      'address',
      'email',
      'familyName',
      'newsletters',
    ]);
  });
});

describe('what an import row changes of a reader who is there', () => {
  it('changes nothing when the row brings nothing new, whatever the letter case of its email', () => {
    const row = { givenName: 'Ann', newsletters: ['daily'], address: { addressLocality: 'Leeds' } };
    const changes = userChanges(reader({ ...row, email: 'ANN@example.COM' }), stored(row), false);
    assert.deepEqual(changes, {
      fields: {},
      addNewsletters: [],
      addIndexes: [],
      suppressed: [],
      password: false,
      names: [],
    });
  });

  it('names only what differs: a field, a newsletter joined', () => {
    const changes = userChanges(
      reader({ givenName: 'Anne', newsletters: ['daily', 'weekly'] }),
      stored({ givenName: 'Ann', newsletters: ['daily'] }),
      false,
    );
    assert.deepEqual(changes, {
      fields: { givenName: 'Anne' },
      addNewsletters: ['weekly'],
      addIndexes: [1],
      suppressed: [],
      password: false,
      names: ['givenName', 'newsletters'],
    });
  });

  it('adds a newsletter the reader left, but none they are pending for, and reports those they are suppressed for', () => {
    const found = stored({});
    const consents = new Map([
      ['left', 'unsubscribed'],
      ['asked', 'pending'],
      ['bounced', 'bounced'],
      ['complained', 'complained'],
    ] as const);
    const changes = userChanges(
      reader({ newsletters: ['asked', 'bounced', 'left', 'new', 'complained', 'bounced'] }),
      { ...found, consents },
      false,
    );
    assert.deepEqual(changes.addNewsletters, ['left', 'new']);
    assert.deepEqual(changes.addIndexes, [2, 3]);
    assert.deepEqual(
      changes.suppressed.map((p) => p.pointer),
      ['/data/attributes/newsletters/add/1', '/data/attributes/newsletters/add/4'],
    );
    assert.deepEqual(changes.names, ['newsletters']);
    // Nothing but a suppressed newsletter: nothing to write.
    const only = userChanges(reader({ newsletters: ['bounced'] }), { ...found, consents }, false);
    assert.deepEqual([only.names, only.suppressed.length], [[], 1]);
  });

  it('applies a password hash to a reader without a password', () => {
    const changes = userChanges(reader({ passwordHash: BCRYPT }), stored({}), false);
    assert.deepEqual([changes.password, changes.names], [true, ['passwordHash']]);
  });

  it('keeps the password a reader has, unless told to overwrite it with another', () => {
    const row = reader({ passwordHash: BCRYPT });
    assert.equal(userChanges(row, stored({}, '$argon2id$v=19$m=19456,t=2,p=1$x$y'), false).password, false);
    assert.equal(userChanges(row, stored({}, '$argon2id$v=19$m=19456,t=2,p=1$x$y'), true).password, true);
    assert.equal(userChanges(row, stored({}, BCRYPT), true).password, false, 'the same hash again');
  });
});
