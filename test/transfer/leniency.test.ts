/**
 * What import reads more kindly than the API: booleans as spreadsheets write them, US and
 * Canadian regions and the two countries spelled out, and dates in a day/month order the file's
 * owner names. Anything else is left as it is, for the API's rules to refuse.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  lenientRecord,
  readBoolean,
  readCountry,
  readDate,
  readRegion,
  undatedHint,
} from '../../src/transfer/leniency.js';

describe('import leniency', () => {
  it('reads true/false/yes/no/1/0 in any case, and the numbers 1 and 0, as booleans', () => {
    for (const text of ['true', 'TRUE', 'Yes', 'yes', '1', ' True ', 1, true])
      assert.equal(readBoolean(text), true, String(text));
    for (const text of ['false', 'FALSE', 'No', 'no', '0', 0, false])
      assert.equal(readBoolean(text), false, String(text));
  });

  it('leaves anything else that is no boolean for the schema to refuse', () => {
    for (const value of ['y', 'n', 'on', '2', '', 'truthy', 2, null]) assert.equal(readBoolean(value), value);
  });

  it('reads the US and Canada by their names and three-letter codes, and no other country', () => {
    for (const name of ['USA', 'usa', 'U.S.A.', 'United States', 'united states of america', 'US']) {
      assert.equal(readCountry(name), 'US', name);
    }
    for (const name of ['Canada', 'CANADA', 'CAN']) assert.equal(readCountry(name), 'CA', name);
    for (const name of ['GB', 'Germany', 'Mexico', 'ca', 'Kanada']) assert.equal(readCountry(name), name);
  });

  it('reads US states and Canadian provinces spelled out, with or without accents, as their codes', () => {
    assert.equal(readRegion('California', 'US'), 'CA');
    assert.equal(readRegion('new york', 'us'), 'NY');
    assert.equal(readRegion('District of Columbia', 'US'), 'DC');
    assert.equal(readRegion('Québec', 'CA'), 'QC');
    assert.equal(readRegion('Quebec', 'CA'), 'QC');
    assert.equal(readRegion('Île-du-Prince-Édouard', 'CA'), 'PE');
    assert.equal(readRegion('Newfoundland & Labrador', 'CA'), 'NL');
  });

  it("reads a region by the country's own names only, and leaves codes and other countries' regions as they are", () => {
    assert.equal(readRegion('Ontario', 'US'), 'Ontario');
    assert.equal(readRegion('California', 'CA'), 'California');
    assert.equal(readRegion('Bavaria', 'DE'), 'Bavaria');
    assert.equal(readRegion('TX', 'US'), 'TX');
    assert.equal(readRegion('Lone Star', 'US'), 'Lone Star');
  });

  it('reads a date alone as midnight UTC, with or without --date-format', () => {
    assert.equal(readDate('2025-03-15', undefined), '2025-03-15T00:00:00+00:00');
    assert.equal(readDate('2025-03-15', 'DD/MM/YYYY'), '2025-03-15T00:00:00+00:00');
  });

  it('reads dates in the order --date-format names, with an optional time, as that instant in UTC', () => {
    assert.equal(readDate('03/15/2025', 'MM/DD/YYYY'), '2025-03-15T00:00:00+00:00');
    assert.equal(readDate('3/5/2025', 'MM/DD/YYYY'), '2025-03-05T00:00:00+00:00');
    assert.equal(readDate('05/03/2025', 'DD/MM/YYYY'), '2025-03-05T00:00:00+00:00');
    assert.equal(readDate('15.03.2025 14:30', 'DD.MM.YYYY'), '2025-03-15T14:30:00+00:00');
    assert.equal(readDate('03/15/2025 23:59:59', 'MM/DD/YYYY'), '2025-03-15T23:59:59+00:00');
  });

  it('leaves a day outside the calendar, another order, and ISO-8601 timestamps as they are', () => {
    assert.equal(readDate('02/29/2025', 'MM/DD/YYYY'), '02/29/2025');
    assert.equal(readDate('02/29/2024', 'MM/DD/YYYY'), '2024-02-29T00:00:00+00:00');
    assert.equal(readDate('12/31/2025', 'MM/DD/YYYY'), '2025-12-31T00:00:00+00:00');
    assert.equal(readDate('13/01/2025', 'MM/DD/YYYY'), '13/01/2025');
    assert.equal(readDate('03/15/2025 24:00', 'MM/DD/YYYY'), '03/15/2025 24:00');
    assert.equal(readDate('15.03.2025', 'MM/DD/YYYY'), '15.03.2025');
    assert.equal(readDate('03/15/2025', undefined), '03/15/2025');
    assert.equal(readDate('2025-03-15T10:00:00-05:00', 'MM/DD/YYYY'), '2025-03-15T10:00:00-05:00');
  });

  it('says a day/month date needs --date-format only when none was given', () => {
    assert.match(
      undatedHint('03/15/2025', undefined) ?? '',
      /--date-format can say \(MM\/DD\/YYYY, DD\/MM\/YYYY, DD\.MM\.YYYY\)/,
    );
    assert.equal(undatedHint('03/15/2025', 'MM/DD/YYYY'), undefined);
    assert.equal(undatedHint('soon', undefined), undefined);
  });

  it("applies all of it to a record's address and subscriptions, and nothing else", () => {
    const record = {
      email: 'ann@example.com',
      familyName: 'Yes',
      address: { addressRegion: 'Québec', addressCountry: 'Canada' },
      subscriptions: [{ dateStarted: '03/15/2025', dateEnded: '2026-03-15', trial: 'FALSE' }],
    };
    assert.deepEqual(lenientRecord(record, { dateFormat: 'MM/DD/YYYY' }), {
      email: 'ann@example.com',
      familyName: 'Yes',
      address: { addressRegion: 'QC', addressCountry: 'CA' },
      subscriptions: [
        { dateStarted: '2025-03-15T00:00:00+00:00', dateEnded: '2026-03-15T00:00:00+00:00', trial: false },
      ],
    });
    assert.equal(record.address.addressRegion, 'Québec', 'the record itself is left as it was');
  });
});
