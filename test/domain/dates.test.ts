import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  formatInstant,
  formatMilliseconds,
  isIsoDateTime,
  isWritableInstant,
  nowInSeconds,
  parseDateOrInstant,
  parseInstant,
} from '../../src/domain/dates.js';

const utc = (...parts: [number, number, number, number?, number?, number?]) => {
  const [year, month, day, hour = 0, minute = 0, second = 0] = parts;
  return Date.UTC(year, month - 1, day, hour, minute, second) / 1000;
};

describe('parseInstant', () => {
  it('reads a timestamp with a +00:00 offset as epoch seconds', () => {
    assert.equal(parseInstant('2025-01-31T12:34:56+00:00'), utc(2025, 1, 31, 12, 34, 56));
  });

  it('reads Z as UTC', () => {
    assert.equal(parseInstant('2025-01-31T12:34:56Z'), utc(2025, 1, 31, 12, 34, 56));
  });

  it('subtracts a positive offset to reach UTC', () => {
    assert.equal(parseInstant('2025-01-31T02:00:00+02:00'), utc(2025, 1, 31, 0, 0, 0));
  });

  it('adds a negative offset, minutes included, to reach UTC', () => {
    assert.equal(parseInstant('2025-01-30T18:30:00-05:30'), utc(2025, 1, 31, 0, 0, 0));
  });

  it('crosses a day, month and year boundary when the offset requires', () => {
    assert.equal(parseInstant('2024-12-31T23:00:00-01:00'), utc(2025, 1, 1, 0, 0, 0));
  });

  it('truncates fractional seconds to the whole second', () => {
    assert.equal(parseInstant('2025-01-31T12:34:56.999Z'), utc(2025, 1, 31, 12, 34, 56));
    assert.equal(parseInstant('2025-01-31T12:34:56.123456789+00:00'), utc(2025, 1, 31, 12, 34, 56));
  });

  it('rejects a timestamp its offset carries out of the years 0000 to 9999 in UTC, which it could not be written back as', () => {
    assert.equal(parseInstant('9999-12-31T23:00:00-05:00'), undefined);
    assert.equal(parseInstant('0000-01-01T00:30:00+01:00'), undefined);
  });

  it('accepts the first and last second of the years 0000 to 9999 in UTC, whatever the offset', () => {
    assert.equal(formatInstant(parseInstant('9999-12-31T18:59:59-05:00')!), '9999-12-31T23:59:59+00:00');
    assert.equal(formatInstant(parseInstant('0000-01-01T01:00:00+01:00')!), '0000-01-01T00:00:00+00:00');
  });

  it('rejects the first second past either end of the years 0000 to 9999 in UTC', () => {
    // An offset of one minute reaches the instant one second past each bound.
    assert.equal(parseInstant('9999-12-31T23:59:00-00:01'), undefined);
    assert.equal(parseInstant('0000-01-01T00:00:59+00:01'), undefined);
    assert.equal(parseInstant('9999-12-31T23:58:59-00:01'), parseInstant('9999-12-31T23:59:59Z'));
    assert.equal(parseInstant('0000-01-01T00:01:00+00:01'), parseInstant('0000-01-01T00:00:00Z'));
  });

  it('rejects a timestamp with more before or after it: a five-digit year, trailing text', () => {
    for (const text of [
      '12025-01-01T00:00:00Z',
      ' 2025-01-01T00:00:00Z',
      '2025-01-01T00:00:00Z ',
      '2025-01-01T00:00:00Zjunk',
      '2025-01-01T00:00:00+00:00:00',
      '2025-01-01T00:00:00.1234567890Z',
    ]) {
      assert.equal(parseInstant(text), undefined, JSON.stringify(text));
    }
  });

  it('accepts 29 February in a leap year', () => {
    assert.equal(parseInstant('2024-02-29T00:00:00Z'), utc(2024, 2, 29));
  });

  it('rejects 29 February in a common year', () => {
    assert.equal(parseInstant('2025-02-29T00:00:00Z'), undefined);
  });

  it('rejects 30 February even in a leap year', () => {
    assert.equal(parseInstant('2024-02-30T00:00:00Z'), undefined);
  });

  it('rejects day 31 of a 30-day month, day 0 and month 0 or 13', () => {
    for (const text of [
      '2025-04-31T00:00:00Z',
      '2025-01-00T00:00:00Z',
      '2025-00-10T00:00:00Z',
      '2025-13-10T00:00:00Z',
    ]) {
      assert.equal(parseInstant(text), undefined, text);
    }
  });

  it('rejects hour 24, minute 60 and second 60', () => {
    for (const text of ['2025-01-01T24:00:00Z', '2025-01-01T00:60:00Z', '2025-01-01T00:00:60Z']) {
      assert.equal(parseInstant(text), undefined, text);
    }
  });

  it('rejects a timestamp without an offset', () => {
    assert.equal(parseInstant('2025-01-01T00:00:00'), undefined);
    assert.equal(parseInstant('2025-01-01T00:00:00.5'), undefined);
  });

  it('accepts an offset of up to 23 hours and 59 minutes', () => {
    assert.equal(parseInstant('2025-01-02T00:00:00+23:59'), utc(2025, 1, 1, 0, 1));
    assert.equal(parseInstant('2025-01-01T00:00:00-23:00'), utc(2025, 1, 1, 23));
  });

  it('rejects an offset with an hour over 23 or a minute over 59', () => {
    assert.equal(parseInstant('2025-01-01T00:00:00+24:00'), undefined);
    assert.equal(parseInstant('2025-01-01T00:00:00+01:60'), undefined);
  });

  it('rejects what is not a full date and time', () => {
    for (const text of ['', '2025-01-01', 'T00:00:00Z', '2025-1-1T00:00:00Z', '2025-01-01 00:00:00Z', 'yesterday']) {
      assert.equal(parseInstant(text), undefined, JSON.stringify(text));
    }
  });

  it('never reads a year before 100 as a year of the 1900s', () => {
    const parsed = parseInstant('0050-06-15T00:00:00+00:00');
    assert.ok(
      parsed === undefined || formatInstant(parsed) === '0050-06-15T00:00:00+00:00',
      `read as ${parsed === undefined ? 'undefined' : formatInstant(parsed)}`,
    );
  });
});

describe('isIsoDateTime', () => {
  it('agrees with parseInstant', () => {
    assert.equal(isIsoDateTime('2024-02-29T00:00:00Z'), true);
    assert.equal(isIsoDateTime('2025-02-29T00:00:00Z'), false);
  });
});

describe('formatInstant', () => {
  it('writes UTC to the second with a +00:00 offset', () => {
    assert.equal(formatInstant(utc(2025, 3, 4, 5, 6, 7)), '2025-03-04T05:06:07+00:00');
  });

  it('writes the epoch as 1970-01-01T00:00:00+00:00', () => {
    assert.equal(formatInstant(0), '1970-01-01T00:00:00+00:00');
  });

  it('writes back in UTC what was parsed with another offset', () => {
    assert.equal(formatInstant(parseInstant('2025-03-04T05:06:07-01:00')!), '2025-03-04T06:06:07+00:00');
  });

  it('round-trips with parseInstant', () => {
    for (const text of [
      '1970-01-01T00:00:00+00:00',
      '2000-02-29T23:59:59+00:00',
      '2024-02-29T12:00:00+00:00',
      '2038-01-19T03:14:08+00:00',
      '9999-12-31T23:59:59+00:00',
    ]) {
      const seconds = parseInstant(text);
      assert.ok(seconds !== undefined, text);
      assert.equal(formatInstant(seconds), text);
      assert.equal(parseInstant(formatInstant(seconds)), seconds);
    }
  });
});

describe('isWritableInstant', () => {
  it('takes the first and last second of the years 0000 to 9999 in UTC, and not one second beyond', () => {
    const first = parseInstant('0000-01-01T00:00:00Z')!;
    const last = parseInstant('9999-12-31T23:59:59Z')!;
    assert.deepEqual(
      [first - 1, first, first + 1, 0, last - 1, last, last + 1].map(isWritableInstant),
      [false, true, true, true, true, true, false],
    );
  });
});

describe('parseDateOrInstant', () => {
  it('reads a calendar date as its first instant in UTC', () => {
    assert.equal(parseDateOrInstant('2026-12-01'), utc(2026, 12, 1));
  });

  it('reads a timestamp with offset as that instant, for a day that begins in another zone', () => {
    assert.equal(parseDateOrInstant('2026-12-01T00:00:00+01:00'), utc(2026, 11, 30, 23));
  });

  for (const text of ['2026-02-30', '2026-13-01', '01/12/2026', '2026-12-01T00:00:00', 'tomorrow', '']) {
    it(`reads ${JSON.stringify(text)} as no date`, () => assert.equal(parseDateOrInstant(text), undefined));
  }
});

describe('formatMilliseconds', () => {
  it('writes UTC to the millisecond with a +00:00 offset', () => {
    assert.equal(formatMilliseconds(utc(2025, 3, 4, 5, 6, 7) * 1000 + 89), '2025-03-04T05:06:07.089+00:00');
  });
});

describe('nowInSeconds', () => {
  it('is the clock in whole seconds since the epoch', () => {
    const before = Math.floor(Date.now() / 1000);
    const now = nowInSeconds();
    const after = Math.floor(Date.now() / 1000);
    assert.ok(Number.isInteger(now) && before <= now && now <= after, `${before} ${now} ${after}`);
  });
});
