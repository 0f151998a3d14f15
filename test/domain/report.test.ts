import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { reportWeeks } from '../../src/domain/report.js';

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
