/**
 * The cut-off as the console says it, from the `meta` the service states: tomorrow still open or
 * past its cut-off, a cut-off on the same day, in the publisher's zone (named when the agent's
 * browser is elsewhere), across a change of clocks.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cutoffText } from '../../console/src/parts/cutoff.js';

describe('the cut-off said before a hold is saved', () => {
  it('says tomorrow can still be stopped until 19:00 today, before the cut-off', () => {
    const open = {
      today: '2026-11-26',
      firstOpenDate: '2026-11-27',
      firstOpenCutoff: '2026-11-26T19:00:00+00:00',
      timeZone: 'UTC',
    };
    assert.equal(cutoffText(open, 'stopped', 'UTC'), 'Tomorrow (Fri 27 Nov) can still be stopped until 19:00 today.');
  });

  it('says tomorrow is past its cut-off and names the first date open, after it', () => {
    const open = {
      today: '2026-11-26',
      firstOpenDate: '2026-11-28',
      firstOpenCutoff: '2026-11-27T19:00:00+00:00',
      timeZone: 'UTC',
    };
    assert.equal(
      cutoffText(open, 'stopped', 'UTC'),
      'Tomorrow (Fri 27 Nov) is past its cut-off; the first date that can be stopped is Sat 28 Nov, until 19:00 tomorrow.',
    );
  });

  it('names a first open date further on, and a cut-off on a day after tomorrow', () => {
    const open = {
      today: '2026-11-26',
      firstOpenDate: '2026-12-01',
      firstOpenCutoff: '2026-11-29T06:00:00+00:00',
      timeZone: 'UTC',
    };
    assert.equal(
      cutoffText(open, 'stopped', 'UTC'),
      'Tomorrow (Fri 27 Nov) is past its cut-off; the first date that can be stopped is Tue 1 Dec, until 06:00 on Sun 29 Nov.',
    );
  });

  it('says today when a cut-off falls on the date itself', () => {
    const open = {
      today: '2026-11-26',
      firstOpenDate: '2026-11-26',
      firstOpenCutoff: '2026-11-26T05:00:00+00:00',
      timeZone: 'UTC',
    };
    assert.equal(cutoffText(open, 'stopped', 'UTC'), 'Today (Thu 26 Nov) can still be stopped until 05:00 today.');
  });

  it("tells the time on the publisher's clock, and names its zone to an agent elsewhere", () => {
    // 19:00 in Berlin on 28 March 2026 is 18:00 UTC (winter time); the clocks go forward that night.
    const open = {
      today: '2026-03-28',
      firstOpenDate: '2026-03-29',
      firstOpenCutoff: '2026-03-28T18:00:00+00:00',
      timeZone: 'Europe/Berlin',
    };
    assert.equal(
      cutoffText(open, 'sent elsewhere', 'America/New_York'),
      'Tomorrow (Sun 29 Mar) can still be sent elsewhere until 19:00 today (Europe/Berlin time).',
    );
    assert.equal(
      cutoffText(open, 'sent elsewhere', 'Europe/Berlin'),
      'Tomorrow (Sun 29 Mar) can still be sent elsewhere until 19:00 today.',
    );
  });

  it('takes the date of a cut-off from its own zone, not UTC, across midnight', () => {
    // 23:30 in Auckland on 26 November is 10:30 UTC the same day; 00:30 the next day there is 11:30 UTC.
    const open = {
      today: '2026-11-26',
      firstOpenDate: '2026-11-28',
      firstOpenCutoff: '2026-11-26T11:30:00+00:00',
      timeZone: 'Pacific/Auckland',
    };
    assert.equal(
      cutoffText(open, 'stopped', 'Pacific/Auckland'),
      'Tomorrow (Fri 27 Nov) is past its cut-off; the first date that can be stopped is Sat 28 Nov, until 00:30 tomorrow.',
    );
  });
});
