import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { monthOf, toLicenceUsage, UsageTally } from '../../src/domain/licence-usage.js';

const at = (iso: string) => Date.parse(iso) / 1000;

describe('monthOf', () => {
  it('puts an instant in its calendar month in UTC, at both edges of a month', () => {
    assert.equal(monthOf(at('2026-11-30T23:59:59Z')), '2026-11');
    assert.equal(monthOf(at('2026-12-01T00:00:00Z')), '2026-12');
    assert.equal(monthOf(at('2026-12-31T23:59:59Z')), '2026-12');
    assert.equal(monthOf(at('2027-01-01T00:00:00Z')), '2027-01');
    // Midnight in a time zone east of UTC is still the month before in UTC.
    assert.equal(monthOf(at('2027-01-01T00:30:00+01:00')), '2026-12');
  });
});

describe('UsageTally', () => {
  const licence = { userId: '7', id: '42' };

  it('keeps one counter per licence, month and way, however many checks', () => {
    const tally = new UsageTally();
    for (let i = 0; i < 1000; i++) tally.count(licence, 'ip', at('2026-11-15T12:00:00Z'));
    tally.count(licence, 'seat', at('2026-11-15T12:00:00Z'));
    tally.count(licence, 'ip', at('2026-12-01T00:00:00Z'));
    tally.count({ userId: '8', id: '43' }, 'ip', at('2026-11-15T12:00:00Z'));
    assert.equal(tally.size, 4);
    assert.deepEqual(
      tally.take().map((c) => [c.subscriptionId, c.month, c.via, c.count]),
      [
        ['42', '2026-11', 'ip', 1000],
        ['42', '2026-11', 'seat', 1],
        ['42', '2026-12', 'ip', 1],
        ['43', '2026-11', 'ip', 1],
      ],
    );
  });

  it("counts each check in the month of its own instant, back and forth across a month's end", () => {
    const tally = new UsageTally();
    for (const instant of ['2026-11-30T23:59:59Z', '2026-12-01T00:00:00Z', '2026-11-30T23:59:59Z']) {
      tally.count(licence, 'ip', at(instant));
    }
    assert.deepEqual(
      tally.take().map((c) => [c.month, c.count]),
      [
        ['2026-11', 2],
        ['2026-12', 1],
      ],
    );
  });

  it('forgets what it gave, and adds back what is given back to what came since', () => {
    const tally = new UsageTally();
    tally.count(licence, 'ip', at('2026-11-15T12:00:00Z'));
    const taken = tally.take();
    assert.equal(tally.size, 0);
    assert.deepEqual(tally.take(), []);
    tally.count(licence, 'ip', at('2026-11-16T12:00:00Z'));
    tally.giveBack(taken);
    assert.deepEqual(
      tally.take().map((c) => c.count),
      [2],
    );
  });
});

describe('UsageTally.giveBack', () => {
  it('keeps each count given back apart by licence, month and way, as counting does', () => {
    const tally = new UsageTally();
    const given = [
      { userId: '7', subscriptionId: '42', month: '2026-11', via: 'ip', count: 3 },
      { userId: '7', subscriptionId: '42', month: '2026-11', via: 'seat', count: 4 },
      { userId: '7', subscriptionId: '42', month: '2026-12', via: 'ip', count: 5 },
      { userId: '7', subscriptionId: '43', month: '2026-11', via: 'ip', count: 6 },
      { userId: '8', subscriptionId: '42', month: '2026-11', via: 'ip', count: 7 },
    ] as const;
    tally.giveBack(given);
    assert.equal(tally.size, 5);
    tally.count({ userId: '7', id: '42' }, 'seat', at('2026-11-30T23:59:59Z'));
    // In no order of its own: the store puts a batch in key order before adding it.
    const inOrder = (counts: readonly object[]) => counts.map((c) => JSON.stringify(c)).sort();
    assert.deepEqual(
      inOrder(tally.take()),
      inOrder([given[0], { ...given[1], count: 5 }, given[2], given[3], given[4]]),
    );
    // What was given back is counted on in a copy: the batch it came from still says what it held.
    assert.equal(given[1].count, 4);
  });
});

describe('toLicenceUsage', () => {
  it('answers each month once, oldest first, with every way counted and the total', () => {
    const usage = toLicenceUsage([
      { month: '2026-11', via: 'seat', count: 2 },
      { month: '2026-10', via: 'ip', count: 5 },
      { month: '2026-11', via: 'email-domain', count: 1 },
    ]);
    assert.deepEqual(usage.months, [
      { month: '2026-10', counts: { ip: 5, 'email-domain': 0, seat: 0 }, total: 5 },
      { month: '2026-11', counts: { ip: 0, 'email-domain': 1, seat: 2 }, total: 3 },
    ]);
    assert.deepEqual(toLicenceUsage([]).months, []);
  });

  it('orders months however the store gave them, across years', () => {
    const months = ['2026-03', '2025-12', '2026-01', '2027-01', '2026-02', '2025-11'];
    const usage = toLicenceUsage(months.map((month) => ({ month, via: 'ip', count: 1 })));
    assert.deepEqual(
      usage.months.map((m) => m.month),
      ['2025-11', '2025-12', '2026-01', '2026-02', '2026-03', '2027-01'],
    );
  });
});
