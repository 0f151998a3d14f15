import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  changesMembership,
  isSuppressed,
  membershipChanges,
  reportedChange,
  suppression,
  toConsentAttributes,
  type ConsentState,
} from '../../src/domain/consent.js';
import { DomainFailure } from '../../src/domain/failures.js';

const pointer = (index: number) => `/data/attributes/newsletters/add/${index}`;
const consents = (entries: Record<string, ConsentState>) => new Map(Object.entries(entries));
const none = new Set<string>();

function suppressedAt(run: () => unknown): string[] {
  try {
    run();
  } catch (error) {
    assert.ok(error instanceof DomainFailure);
    assert.equal(error.code, 'CONSENT_SUPPRESSED');
    return error.problems.map((p) => p.pointer);
  }
  assert.fail('not refused');
}

describe('membershipChanges', () => {
  it('subscribes a reader to a newsletter they never had, or had left', () => {
    assert.deepEqual(membershipChanges(consents({ weekly: 'unsubscribed' }), ['daily', 'weekly'], [], none, pointer), [
      { newsletterId: 'daily', from: null, to: 'subscribed' },
      { newsletterId: 'weekly', from: 'unsubscribed', to: 'subscribed' },
    ]);
  });

  it('changes nothing of a member, nor of one added twice in a request', () => {
    assert.deepEqual(membershipChanges(consents({ daily: 'subscribed' }), ['daily'], [], none, pointer), []);
    assert.deepEqual(membershipChanges(new Map(), ['daily', 'daily'], [], none, pointer), [
      { newsletterId: 'daily', from: null, to: 'subscribed' },
    ]);
  });

  it('puts an added reader in pending under double opt-in, and leaves a pending one pending', () => {
    const optIn = new Set(['daily']);
    assert.deepEqual(membershipChanges(new Map(), ['daily'], [], optIn, pointer), [
      { newsletterId: 'daily', from: null, to: 'pending' },
    ]);
    assert.deepEqual(membershipChanges(consents({ daily: 'pending' }), ['daily'], [], optIn, pointer), []);
    // A member stays a member when the newsletter turns to double opt-in.
    assert.deepEqual(membershipChanges(consents({ daily: 'subscribed' }), ['daily'], [], optIn, pointer), []);
    // A pending reader added once the newsletter no longer asks for confirmation is subscribed.
    assert.deepEqual(membershipChanges(consents({ daily: 'pending' }), ['daily'], [], none, pointer), [
      { newsletterId: 'daily', from: 'pending', to: 'subscribed' },
    ]);
  });

  it('refuses to add a bounced or complained reader, at each such newsletter’s first place in add', () => {
    const current = consents({ a: 'bounced', b: 'complained', c: 'unsubscribed' });
    assert.deepEqual(
      suppressedAt(() => membershipChanges(current, ['c', 'a', 'b', 'a'], [], none, pointer)),
      [pointer(1), pointer(2)],
    );
    // Double opt-in does not make a suppressed reader pending either.
    assert.deepEqual(
      suppressedAt(() => membershipChanges(current, ['a'], [], new Set(['a']), pointer)),
      [pointer(0)],
    );
  });

  it('unsubscribes a member or a pending reader; leaves the suppressed, the gone and the unknown as they are', () => {
    const current = consents({ a: 'subscribed', b: 'pending', c: 'bounced', d: 'complained', e: 'unsubscribed' });
    assert.deepEqual(membershipChanges(current, [], ['a', 'b', 'c', 'd', 'e', 'f', 'a'], none, pointer), [
      { newsletterId: 'a', from: 'subscribed', to: 'unsubscribed' },
      { newsletterId: 'b', from: 'pending', to: 'unsubscribed' },
    ]);
  });
});

describe('reportedChange', () => {
  it('records a bounce or complaint from any state, and nothing when the state is already so', () => {
    for (const from of ['pending', 'subscribed', 'unsubscribed', 'complained'] as const) {
      assert.deepEqual(reportedChange('n', from, 'bounced'), { newsletterId: 'n', from, to: 'bounced' });
    }
    assert.deepEqual(reportedChange('n', 'bounced', 'complained'), {
      newsletterId: 'n',
      from: 'bounced',
      to: 'complained',
    });
    assert.equal(reportedChange('n', 'bounced', 'bounced'), null);
    assert.equal(reportedChange('n', 'unsubscribed', 'unsubscribed'), null);
  });

  it('unsubscribes a member, but refuses to lift a suppression by unsubscribing', () => {
    assert.deepEqual(reportedChange('n', 'subscribed', 'unsubscribed'), {
      newsletterId: 'n',
      from: 'subscribed',
      to: 'unsubscribed',
    });
    assert.deepEqual(
      suppressedAt(() => reportedChange('n', 'bounced', 'unsubscribed')),
      ['/data/attributes/state'],
    );
    assert.deepEqual(
      suppressedAt(() => reportedChange('n', 'complained', 'unsubscribed')),
      ['/data/attributes/state'],
    );
  });
});

describe('isSuppressed and changesMembership', () => {
  it('suppresses bounced and complained alone', () => {
    assert.deepEqual(
      (['pending', 'subscribed', 'unsubscribed', 'bounced', 'complained', null] as const).map(isSuppressed),
      [false, false, false, true, true, false],
    );
  });

  it('moves membership only across subscribed', () => {
    assert.equal(changesMembership({ newsletterId: 'n', from: null, to: 'subscribed' }), true);
    assert.equal(changesMembership({ newsletterId: 'n', from: 'subscribed', to: 'bounced' }), true);
    assert.equal(changesMembership({ newsletterId: 'n', from: null, to: 'pending' }), false);
    assert.equal(changesMembership({ newsletterId: 'n', from: 'pending', to: 'unsubscribed' }), false);
  });
});

describe('suppression', () => {
  it('names the newsletter and the suppressing state, and that only confirmation puts the reader back', () => {
    assert.deepEqual(suppression('daily', 'bounced', '/data/attributes/state'), {
      pointer: '/data/attributes/state',
      detail: 'newsletter daily is suppressed for this reader (bounced): only their confirmation puts them back',
    });
  });
});

describe('toConsentAttributes', () => {
  it('gives the state, the source and when it changed, written as the caller writes instants', () => {
    const consent = {
      userId: 'u',
      newsletterId: 'daily',
      state: 'subscribed',
      source: 'confirmation',
      changedAt: 1_767_225_600,
      version: 3,
    } as const;
    assert.deepEqual(
      toConsentAttributes(consent, (seconds) => `at ${seconds}`),
      { state: 'subscribed', source: 'confirmation', changedAt: 'at 1767225600' },
    );
  });
});
