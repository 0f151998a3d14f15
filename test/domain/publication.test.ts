import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  cutoffOf,
  dateAt,
  firstDayOfYear,
  firstOpenDate,
  formatDate,
  isPublicationDate,
  instantOf,
  isTimeZone,
  parseCutoff,
  parseDate,
  startOfDate,
  wallClock,
  yearOf,
  type PublicationCalendar,
} from '../../src/domain/publication.js';

const at = (iso: string) => Date.parse(iso) / 1000;
const date = (text: string) => parseDate(text) as number;
const calendar = (zone: string, cutoff = '-1T19:00'): PublicationCalendar => ({
  zone,
  cutoff: parseCutoff(cutoff) as NonNullable<ReturnType<typeof parseCutoff>>,
});

describe('publication dates', () => {
  it('read a calendar date as YYYY-MM-DD, and write it back the same', () => {
    for (const text of ['1970-01-01', '2024-02-29', '2026-12-31', '1900-01-01', '9999-12-31', '2000-02-29']) {
      assert.equal(formatDate(date(text)), text);
    }
    assert.equal(date('1970-01-02'), 1);
  });

  it('are not what is not a date: 29 February of a common year, month 13, other shapes', () => {
    for (const text of [
      '2025-02-29',
      '1900-02-29',
      '2026-13-01',
      '2026-04-31',
      '2026-00-10',
      '2026-03-00',
      '2026-3-2',
      '2026-03-02T00:00:00Z',
      'tomorrow',
      '',
    ]) {
      assert.equal(parseDate(text), undefined, text);
    }
  });

  it('lie in the years 1900 to 9999', () => {
    assert.equal(parseDate('1899-12-31'), undefined);
    assert.equal(parseDate('0000-01-01'), undefined);
  });
});

describe('CHANGE_CUTOFF', () => {
  it('reads days before the date and a wall-clock time', () => {
    assert.deepEqual(parseCutoff('-1T19:00'), { days: -1, second: 19 * 3600 });
    assert.deepEqual(parseCutoff('0T06:30'), { days: 0, second: 6 * 3600 + 30 * 60 });
    assert.deepEqual(parseCutoff('-14T00:00'), { days: -14, second: 0 });
  });

  it('is refused after the date, more than 14 days before, or at a time that is not one', () => {
    for (const text of ['1T00:00', '-15T00:00', '-1T24:00', '-1T19:60', '19:00', '-1', '-1T7:00', '']) {
      assert.equal(parseCutoff(text), undefined, text);
    }
  });
});

describe("a date's cut-off", () => {
  it('is 19:00 the day before by default, in UTC', () => {
    assert.equal(cutoffOf(date('2026-03-03'), calendar('UTC')), at('2026-03-02T19:00:00Z'));
  });

  it('stays at 19:00 on the wall clock across both DST changes in Europe/Berlin', () => {
    const berlin = calendar('Europe/Berlin');
    // Clocks go forward on 29 March 2026 and back on 25 October 2026.
    assert.equal(cutoffOf(date('2026-03-29'), berlin), at('2026-03-28T19:00:00+01:00'));
    assert.equal(cutoffOf(date('2026-03-30'), berlin), at('2026-03-29T19:00:00+02:00'));
    assert.equal(cutoffOf(date('2026-10-25'), berlin), at('2026-10-24T19:00:00+02:00'));
    assert.equal(cutoffOf(date('2026-10-26'), berlin), at('2026-10-25T19:00:00+01:00'));
  });

  it('stays at 19:00 on the wall clock across both DST changes in America/New_York', () => {
    const newYork = calendar('America/New_York');
    // Clocks go forward on 8 March 2026 and back on 1 November 2026.
    assert.equal(cutoffOf(date('2026-03-08'), newYork), at('2026-03-07T19:00:00-05:00'));
    assert.equal(cutoffOf(date('2026-03-09'), newYork), at('2026-03-08T19:00:00-04:00'));
    assert.equal(cutoffOf(date('2026-11-01'), newYork), at('2026-10-31T19:00:00-04:00'));
    assert.equal(cutoffOf(date('2026-11-02'), newYork), at('2026-11-01T19:00:00-05:00'));
  });

  it('falls at the first of a time that comes twice, and a gap later for one that never comes', () => {
    const berlin = calendar('Europe/Berlin', '-1T02:30');
    // 02:30 on 25 October 2026 comes at 00:30Z and again at 01:30Z.
    assert.equal(cutoffOf(date('2026-10-26'), berlin), at('2026-10-25T00:30:00Z'));
    // 02:30 on 29 March 2026 never comes: read by the clock before, it is 03:30 after the change.
    assert.equal(cutoffOf(date('2026-03-30'), berlin), at('2026-03-29T03:30:00+02:00'));
  });

  it('may fall on the date itself, days before it', () => {
    assert.equal(cutoffOf(date('2026-03-03'), calendar('UTC', '0T05:00')), at('2026-03-03T05:00:00Z'));
    assert.equal(cutoffOf(date('2026-03-03'), calendar('UTC', '-3T12:00')), at('2026-02-28T12:00:00Z'));
  });
});

describe('the first open date', () => {
  it('is tomorrow until the cut-off, and the day after from it', () => {
    const utc = calendar('UTC');
    assert.equal(formatDate(firstOpenDate(at('2026-03-02T18:59:59Z'), utc)), '2026-03-03');
    assert.equal(formatDate(firstOpenDate(at('2026-03-02T19:00:00Z'), utc)), '2026-03-04');
    assert.equal(formatDate(firstOpenDate(at('2026-03-02T00:00:00Z'), utc)), '2026-03-03');
  });

  it('follows the wall clock of the zone across a DST change', () => {
    const berlin = calendar('Europe/Berlin');
    // 18:59 and 19:00 in Berlin on the Sunday the clocks went forward (UTC+2).
    assert.equal(formatDate(firstOpenDate(at('2026-03-29T16:59:59Z'), berlin)), '2026-03-30');
    assert.equal(formatDate(firstOpenDate(at('2026-03-29T17:00:00Z'), berlin)), '2026-03-31');
    // And on the Saturday before, still UTC+1.
    assert.equal(formatDate(firstOpenDate(at('2026-03-28T17:59:59Z'), berlin)), '2026-03-29');
    assert.equal(formatDate(firstOpenDate(at('2026-03-28T18:00:00Z'), berlin)), '2026-03-30');
  });

  it('is days ahead when changes close days before', () => {
    assert.equal(formatDate(firstOpenDate(at('2026-03-02T11:00:00Z'), calendar('UTC', '-3T12:00'))), '2026-03-05');
    assert.equal(formatDate(firstOpenDate(at('2026-03-02T12:00:00Z'), calendar('UTC', '-3T12:00'))), '2026-03-06');
  });
});

describe('dates and instants in a zone', () => {
  it('today is the date on the wall clock there', () => {
    assert.equal(formatDate(dateAt(at('2026-03-02T23:30:00Z'), 'UTC')), '2026-03-02');
    assert.equal(formatDate(dateAt(at('2026-03-02T23:30:00Z'), 'Europe/Berlin')), '2026-03-03');
    assert.equal(formatDate(dateAt(at('2026-03-02T03:30:00Z'), 'America/New_York')), '2026-03-01');
  });

  it('a date starts at its local midnight, 23 hours after the one before when clocks go forward', () => {
    assert.equal(startOfDate(date('2026-03-29'), 'Europe/Berlin'), at('2026-03-29T00:00:00+01:00'));
    assert.equal(startOfDate(date('2026-03-30'), 'Europe/Berlin'), at('2026-03-30T00:00:00+02:00'));
    assert.equal(instantOf(date('2026-07-01'), 12 * 3600, 'America/New_York'), at('2026-07-01T12:00:00-04:00'));
  });

  it('knows the IANA zones, and no other names', () => {
    assert.ok(isTimeZone('Europe/Berlin'));
    assert.ok(isTimeZone('UTC'));
    assert.equal(isTimeZone('Mars/Olympus_Mons'), false);
  });
});

describe('years of publication dates', () => {
  it('know the year a date falls in, at its first and last day', () => {
    assert.deepEqual(
      ['1900-01-01', '1999-12-31', '2000-01-01', '2024-12-31', '9999-12-31'].map((text) => yearOf(date(text))),
      [1900, 1999, 2000, 2024, 9999],
    );
  });

  it('know the first day of a year', () => {
    assert.equal(firstDayOfYear(1970), 0);
    assert.equal(formatDate(firstDayOfYear(2024)), '2024-01-01');
    assert.equal(formatDate(firstDayOfYear(1900)), '1900-01-01');
  });
});

describe('isPublicationDate', () => {
  it('is true of a calendar date in range and false of anything else', () => {
    assert.equal(isPublicationDate('2024-02-29'), true);
    assert.equal(isPublicationDate('2025-02-29'), false);
    assert.equal(isPublicationDate('1899-12-31'), false);
  });
});

describe('CHANGE_CUTOFF, further', () => {
  it('reads -0 days as the date itself, 0, not negative zero', () => {
    assert.ok(Object.is(parseCutoff('-0T06:00')?.days, 0));
  });
});

describe('day numbers', () => {
  it('write every date from 1900 to 2400 as the calendar does, and read it back', () => {
    for (let day = date('1900-01-01'); day <= date('2400-12-31'); day++) {
      const text = new Date(day * 86_400_000).toISOString().slice(0, 10);
      if (formatDate(day) !== text || parseDate(text) !== day) assert.fail(`day ${day}: ${formatDate(day)}, ${text}`);
    }
  });
});

describe('wallClock', () => {
  it('gives the date and the second of the day, seconds included', () => {
    assert.deepEqual(wallClock(at('2026-03-02T10:20:30Z'), 'UTC'), {
      day: date('2026-03-02'),
      second: 10 * 3600 + 20 * 60 + 30,
    });
  });
});

describe('CHANGE_CUTOFF, whole', () => {
  it('is refused with anything before or after it', () => {
    assert.equal(parseCutoff('x-1T19:00'), undefined);
    assert.equal(parseCutoff('-1T19:00x'), undefined);
  });
});
