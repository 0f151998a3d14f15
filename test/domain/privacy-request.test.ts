/**
 * Privacy requests on their own: the answer due one calendar month after the request came (UTC),
 * a completion never before it, and what a request keeps of its reader once they are erased.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatInstant, parseInstant } from '../../src/domain/dates.js';
import { DomainFailure } from '../../src/domain/failures.js';
import {
  changedPrivacyRequest,
  newPrivacyRequest,
  oneMonthAfter,
  PrivacyRequestCreateAttributes,
  PrivacyRequestUpdateAttributes,
  toPrivacyRequestAttributes,
  toPrivacyRequestRelationships,
  type PrivacyRequestValues,
  type StoredPrivacyRequest,
} from '../../src/domain/privacy-request.js';
import { rulesOf } from '../../src/domain/validation.js';

const at = (text: string) => parseInstant(text) as number;
const iso = (epochSeconds: number) => formatInstant(epochSeconds);

/** The problems a write is refused with, or undefined when it is taken. */
function problems(work: () => unknown) {
  try {
    work();
    return undefined;
  } catch (error) {
    assert.ok(error instanceof DomainFailure);
    assert.equal(error.code, 'INVALID_ATTRIBUTE');
    return error.problems;
  }
}

const COMPLETED_BEFORE = [{ pointer: '/data/attributes/completedAt', detail: 'must not be before receivedAt' }];

describe('oneMonthAfter', () => {
  it('is the same day and time of the next month', () => {
    assert.equal(iso(oneMonthAfter(at('2026-01-15T09:30:05Z'))), '2026-02-15T09:30:05+00:00');
    assert.equal(iso(oneMonthAfter(at('2026-02-28T00:00:00Z'))), '2026-03-28T00:00:00+00:00');
    assert.equal(iso(oneMonthAfter(at('2026-04-30T12:00:00Z'))), '2026-05-30T12:00:00+00:00');
  });

  it("is the next month's last day when it has no such day", () => {
    assert.equal(iso(oneMonthAfter(at('2026-01-31T09:00:00Z'))), '2026-02-28T09:00:00+00:00');
    assert.equal(iso(oneMonthAfter(at('2028-01-31T09:00:00Z'))), '2028-02-29T09:00:00+00:00');
    assert.equal(iso(oneMonthAfter(at('2028-01-29T09:00:00Z'))), '2028-02-29T09:00:00+00:00');
    assert.equal(iso(oneMonthAfter(at('2026-03-31T23:59:59Z'))), '2026-04-30T23:59:59+00:00');
    assert.equal(iso(oneMonthAfter(at('2026-08-31T00:00:00Z'))), '2026-09-30T00:00:00+00:00');
  });

  it('crosses into the next year from December', () => {
    assert.equal(iso(oneMonthAfter(at('2026-12-31T23:59:59Z'))), '2027-01-31T23:59:59+00:00');
    assert.equal(iso(oneMonthAfter(at('2026-12-01T00:00:00Z'))), '2027-01-01T00:00:00+00:00');
  });

  it('counts in UTC, whatever offset the request was received at', () => {
    assert.equal(iso(oneMonthAfter(at('2026-01-31T23:30:00-01:00'))), '2026-03-01T00:30:00+00:00');
  });
});

describe('newPrivacyRequest', () => {
  const now = at('2026-03-10T08:00:00Z');

  it('is received now unless it says when, due a month later, open and without notes', () => {
    assert.deepEqual(newPrivacyRequest({ kind: 'access' }, now), {
      kind: 'access',
      receivedAt: now,
      dueAt: at('2026-04-10T08:00:00Z'),
      completedAt: null,
      notes: null,
    });
    assert.deepEqual(
      newPrivacyRequest({ kind: 'erasure', receivedAt: '2026-01-31T10:00:00Z', completedAt: null, notes: null }, now),
      {
        kind: 'erasure',
        receivedAt: at('2026-01-31T10:00:00Z'),
        dueAt: at('2026-02-28T10:00:00Z'),
        completedAt: null,
        notes: null,
      },
    );
  });

  it('keeps the completion and notes sent', () => {
    const values = newPrivacyRequest(
      { kind: 'objection', receivedAt: '2026-03-01T00:00:00Z', completedAt: '2026-03-02T00:00:00Z', notes: 'done' },
      now,
    );
    assert.equal(values.completedAt, at('2026-03-02T00:00:00Z'));
    assert.equal(values.notes, 'done');
  });

  it('may be completed the instant it came, and not a second before', () => {
    const receivedAt = '2026-03-01T00:00:00Z';
    assert.equal(
      problems(() => newPrivacyRequest({ kind: 'access', receivedAt, completedAt: receivedAt }, now)),
      undefined,
    );
    assert.deepEqual(
      problems(() => newPrivacyRequest({ kind: 'access', receivedAt, completedAt: '2026-02-28T23:59:59Z' }, now)),
      COMPLETED_BEFORE,
    );
    // Received now, when it does not say: a completion sent before now is before it came.
    assert.deepEqual(
      problems(() => newPrivacyRequest({ kind: 'access', completedAt: iso(now - 1) }, now)),
      COMPLETED_BEFORE,
    );
  });

  it('is refused when its due date would be past the year 9999', () => {
    assert.equal(
      problems(() => newPrivacyRequest({ kind: 'access', receivedAt: '9999-11-30T23:59:59Z' }, now)),
      undefined,
    );
    assert.deepEqual(
      problems(() => newPrivacyRequest({ kind: 'access', receivedAt: '9999-12-01T00:00:00Z' }, now)),
      [
        {
          pointer: '/data/attributes/receivedAt',
          detail: 'must be early enough for its due date to be in the year 9999',
        },
      ],
    );
  });
});

describe('changedPrivacyRequest', () => {
  const current: PrivacyRequestValues = {
    kind: 'access',
    receivedAt: at('2026-03-10T08:00:00Z'),
    dueAt: at('2026-04-10T08:00:00Z'),
    completedAt: at('2026-03-20T08:00:00Z'),
    notes: 'sent the copy',
  };

  it('keeps what was not sent', () => {
    assert.deepEqual(changedPrivacyRequest(current, {}), current);
  });

  it('takes what was sent, and moves the due date with receivedAt', () => {
    assert.deepEqual(
      changedPrivacyRequest(current, {
        kind: 'rectification',
        receivedAt: '2026-01-31T08:00:00Z',
        completedAt: '2026-02-01T00:00:00Z',
        notes: 'corrected the address',
      }),
      {
        kind: 'rectification',
        receivedAt: at('2026-01-31T08:00:00Z'),
        dueAt: at('2026-02-28T08:00:00Z'),
        completedAt: at('2026-02-01T00:00:00Z'),
        notes: 'corrected the address',
      },
    );
  });

  it('reopens a request and clears its notes with null', () => {
    assert.deepEqual(changedPrivacyRequest(current, { completedAt: null, notes: null }), {
      ...current,
      completedAt: null,
      notes: null,
    });
  });

  it('refuses a completion before the stored receivedAt, and a receivedAt after the stored completion', () => {
    assert.deepEqual(
      problems(() => changedPrivacyRequest(current, { completedAt: '2026-03-10T07:59:59Z' })),
      COMPLETED_BEFORE,
    );
    assert.equal(
      problems(() => changedPrivacyRequest(current, { completedAt: '2026-03-10T08:00:00Z' })),
      undefined,
    );
    assert.deepEqual(
      problems(() => changedPrivacyRequest(current, { receivedAt: '2026-03-20T08:00:01Z' })),
      COMPLETED_BEFORE,
    );
  });
});

describe('the rule across the two dates of a write', () => {
  for (const [name, schema] of [
    ['create', PrivacyRequestCreateAttributes],
    ['update', PrivacyRequestUpdateAttributes],
  ] as const) {
    const rules = rulesOf(schema);

    it(`refuses a ${name} whose completedAt is before its receivedAt, at completedAt`, () => {
      assert.ok(rules);
      const receivedAt = '2026-03-01T00:00:00+01:00';
      assert.deepEqual(rules({ receivedAt, completedAt: '2026-02-28T22:59:59Z' }), COMPLETED_BEFORE);
      assert.deepEqual(rules({ receivedAt, completedAt: '2026-02-28T23:00:00Z' }), []);
    });

    it(`leaves a ${name} alone that does not send both dates well formed`, () => {
      assert.ok(rules);
      for (const attributes of [
        { receivedAt: '2026-03-01T00:00:00Z' },
        { completedAt: '2026-03-01T00:00:00Z' },
        { receivedAt: '2026-03-01T00:00:00Z', completedAt: null },
        { receivedAt: 1, completedAt: '2026-02-01T00:00:00Z' },
        { receivedAt: '2026-03-01T00:00:00Z', completedAt: 'yesterday' },
        { receivedAt: 'today', completedAt: '2026-02-01T00:00:00Z' },
        // Text in an array (which the schema refuses at its own pointer) is not the date it spells.
        { receivedAt: ['2026-03-01T00:00:00Z'], completedAt: '2026-02-01T00:00:00Z' },
        { receivedAt: '2026-03-01T00:00:00Z', completedAt: ['2026-02-01T00:00:00Z'] },
        null,
        ['2026-03-01T00:00:00Z', '2026-02-01T00:00:00Z'],
      ]) {
        assert.deepEqual(rules(attributes), [], JSON.stringify(attributes));
      }
    });
  }
});

describe('a privacy request as a resource', () => {
  const stored: StoredPrivacyRequest = {
    id: '3',
    userId: '42',
    kind: 'erasure',
    receivedAt: at('2026-01-31T09:00:00Z'),
    dueAt: at('2026-02-28T09:00:00Z'),
    completedAt: null,
    notes: 'asked by phone',
    readerErasedAt: null,
    version: 1,
  };

  it('shows its dates, open while it has no completion, and links its reader', () => {
    assert.deepEqual(toPrivacyRequestAttributes(stored), {
      kind: 'erasure',
      receivedAt: '2026-01-31T09:00:00+00:00',
      dueAt: '2026-02-28T09:00:00+00:00',
      completedAt: null,
      notes: 'asked by phone',
      readerErasedAt: null,
    });
    assert.deepEqual(toPrivacyRequestRelationships(stored), { user: { data: { type: 'users', id: '42' } } });
  });

  it('keeps, once its reader is erased, no link to them, only that and when', () => {
    const erased = {
      ...stored,
      userId: null,
      notes: null,
      completedAt: at('2026-02-01T00:00:00Z'),
      readerErasedAt: at('2026-02-01T00:00:00Z'),
    };
    assert.deepEqual(toPrivacyRequestAttributes(erased), {
      kind: 'erasure',
      receivedAt: '2026-01-31T09:00:00+00:00',
      dueAt: '2026-02-28T09:00:00+00:00',
      completedAt: '2026-02-01T00:00:00+00:00',
      notes: null,
      readerErasedAt: '2026-02-01T00:00:00+00:00',
    });
    assert.deepEqual(toPrivacyRequestRelationships(erased), { user: { data: null } });
  });
});
