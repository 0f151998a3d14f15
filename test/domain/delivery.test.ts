/**
 * The print run's date and its draw report: the copies of a run, in all, by product and by postal
 * code, as the printer and each depot read them.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { drawReport, runOf } from '../../src/domain/delivery.js';
import { parseDate } from '../../src/domain/publication.js';

const date = (text: string) => parseDate(text) as number;
const at = (iso: string) => Date.parse(iso) / 1000;

describe('a run', () => {
  it("runs from its date's midnight to the next in the publisher's zone", () => {
    assert.deepEqual(runOf(date('2026-03-10'), 'UTC'), {
      date: date('2026-03-10'),
      startsAt: at('2026-03-10T00:00:00Z'),
      endsAt: at('2026-03-11T00:00:00Z'),
    });
  });

  it('is 23 hours long on the day the clocks go forward', () => {
    const run = runOf(date('2026-03-29'), 'Europe/London');
    assert.deepEqual([run.startsAt, run.endsAt], [at('2026-03-29T00:00:00Z'), at('2026-03-29T23:00:00Z')]);
  });
});

describe("a run's draw report", () => {
  it('adds up the copies of each product and each postal code, a key counted once however often it comes', () => {
    const report = drawReport('2026-03-10', [
      { productId: 'daily', postalCode: 'B1', copies: 2 },
      { productId: 'weekend', postalCode: 'A1', copies: 1 },
      { productId: 'daily', postalCode: 'A1', copies: 3 },
    ]);
    assert.deepEqual(report, {
      date: '2026-03-10',
      copies: 6,
      byProduct: [
        { product: 'daily', copies: 5 },
        { product: 'weekend', copies: 1 },
      ],
      byPostalCode: [
        { postalCode: 'A1', copies: 4 },
        { postalCode: 'B1', copies: 2 },
      ],
    });
  });

  it('puts none (null) after a key of digits too, which a comparison would read as a number', () => {
    for (const keys of [
      [null, '10', '9'],
      ['10', null, '9'],
      ['9', '10', null],
    ]) {
      const report = drawReport(
        '2026-03-10',
        keys.map((key) => ({ productId: key, postalCode: key, copies: 1 })),
      );
      assert.deepEqual(
        report.byProduct.map((row) => row.product),
        ['10', '9', null],
        JSON.stringify(keys),
      );
      assert.deepEqual(
        report.byPostalCode.map((row) => row.postalCode),
        ['10', '9', null],
        JSON.stringify(keys),
      );
    }
  });

  it('orders the keys as text, and puts none (null) last wherever it comes', () => {
    const counts = (keys: (string | null)[]) =>
      keys.map((key, i) => ({ productId: key, postalCode: key, copies: i + 1 }));
    for (const keys of [
      ['b', null, 'a', 'B', 'a'],
      [null, 'a', 'b', 'B'],
      ['B', 'b', 'a', null],
    ]) {
      const report = drawReport('2026-03-10', counts(keys));
      assert.deepEqual(
        report.byProduct.map((row) => row.product),
        ['B', 'a', 'b', null],
        JSON.stringify(keys),
      );
      assert.deepEqual(
        report.byPostalCode.map((row) => row.postalCode),
        ['B', 'a', 'b', null],
        JSON.stringify(keys),
      );
    }
  });

  it('of a run with no deliveries, counts none', () => {
    assert.deepEqual(drawReport('2026-03-10', []), { date: '2026-03-10', copies: 0, byProduct: [], byPostalCode: [] });
  });
});
