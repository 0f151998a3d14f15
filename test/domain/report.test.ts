import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { reportWeeks, subscriptionReport } from '../../src/domain/report.js';

const seconds = (iso: string) => Date.parse(iso) / 1000;

describe('reportWeeks', () => {
  it('are the last 12 ISO weeks from Monday 00:00 UTC, oldest first, the current one up to now', () => {
    const now = seconds('2026-11-23T13:00:00Z');
    const weeks = reportWeeks(now);
    assert.equal(weeks.length, 12);
    assert.deepEqual(weeks.at(-1), { week: '2026-W48', from: seconds('2026-11-23T00:00:00Z'), to: now });
    assert.deepEqual(weeks[0], {
      week: '2026-W37',
      from: seconds('2026-09-07T00:00:00Z'),
      to: seconds('2026-09-14T00:00:00Z'),
    });
  });

  it('name a week by the year of its Thursday', () => {
    const weeks = reportWeeks(seconds('2021-01-10T23:59:59Z'), 2);
    assert.deepEqual(
      weeks.map((w) => w.week),
      ['2020-W53', '2021-W01'],
    );
    assert.equal(reportWeeks(seconds('2024-12-30T00:00:00Z'), 1)[0]?.week, '2025-W01');
  });
});

describe('subscriptionReport', () => {
  const now = seconds('2026-11-23T13:00:00Z');

  it("counts a group without a resource of its own as its product's, and one with neither as null, in RESOURCES order", () => {
    const report = subscriptionReport(
      now,
      [
        { resource: null, productId: null, productResource: null, count: 1 },
        { resource: 'print', productId: 'daily', productResource: 'online', count: 2 },
        { resource: null, productId: 'daily', productResource: 'online', count: 3 },
        { resource: 'online', productId: null, productResource: null, count: 4 },
      ],
      [],
      [],
    );
    assert.deepEqual(report.activeByResource, [
      { resource: 'online', count: 7 },
      { resource: 'print', count: 2 },
      { resource: null, count: 1 },
    ]);
    assert.equal(report.at, '2026-11-23T13:00:00+00:00');
  });

  it('sums each product, ordered by id as text, subscriptions without one last', () => {
    for (const order of [
      ['b', null, 'a', 'B'],
      [null, 'B', 'b', 'a'],
      ['a', 'b', 'B', null],
    ]) {
      const groups = order.flatMap((productId) => [
        { resource: 'print' as const, productId, productResource: null, count: 1 },
        { resource: 'online' as const, productId, productResource: null, count: 2 },
      ]);
      assert.deepEqual(
        subscriptionReport(now, groups, [], []).activeByProduct,
        ['B', 'a', 'b', null].map((product) => ({ product, count: 3 })),
        JSON.stringify(order),
      );
    }
  });

  it('puts subscriptions without a product after an id of digits too, which a comparison would read as a number', () => {
    for (const order of [
      [null, '10', '9'],
      ['10', null, '9'],
      ['9', '10', null],
    ]) {
      const groups = order.map((productId) => ({
        resource: 'print' as const,
        productId,
        productResource: null,
        count: 1,
      }));
      assert.deepEqual(
        subscriptionReport(now, groups, [], []).activeByProduct.map((row) => row.product),
        ['10', '9', null],
        JSON.stringify(order),
      );
    }
  });

  it('gives each week its counts as instants, and none where no count came', () => {
    const weeks = reportWeeks(now, 2);
    const report = subscriptionReport(now, [], weeks, [{ started: 5, ended: 1 }]);
    assert.deepEqual(report.activeByResource, []);
    assert.deepEqual(report.activeByProduct, []);
    assert.deepEqual(report.weeks, [
      { week: '2026-W47', from: '2026-11-16T00:00:00+00:00', to: '2026-11-23T00:00:00+00:00', started: 5, ended: 1 },
      { week: '2026-W48', from: '2026-11-23T00:00:00+00:00', to: '2026-11-23T13:00:00+00:00', started: 0, ended: 0 },
    ]);
  });
});
