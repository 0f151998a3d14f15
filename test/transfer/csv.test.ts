/**
 * CSV cells: what a spreadsheet would run as a formula is exported as text (OWASP's advice against
 * CSV injection), and import reads back exactly what was exported.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { flatten, forSpreadsheets, neutralised, restored, unflatten } from '../../src/transfer/csv.js';

describe('CSV cells', () => {
  for (const formula of [
    '=HYPERLINK("https://evil.example","click")',
    '+44 20 7946 0000',
    '-2+3',
    '@SUM(A1)',
    '\t1',
    '\r1',
    '\n1',
  ]) {
    it(`neutralise ${JSON.stringify(formula)} with a leading apostrophe`, () => {
      assert.equal(neutralised(formula), `'${formula}`);
    });
  }

  for (const [cell, exported] of [
    ['Berlin;=1+1;', "Berlin;'=1+1;"],
    ['Berlin,=1+1', "Berlin,'=1+1"],
    ['a\t@SUM(A1)', "a\t'@SUM(A1)"],
    ['line one\n=1+1', "line one\n'=1+1"],
    ['line one\r\n-1', "line one\r'\n'-1"],
    ['\n=1+1', "'\n'=1+1"],
    ['a;;+1', "a;;'+1"],
  ]) {
    it(`neutralise ${JSON.stringify(cell)} wherever a spreadsheet could start a cell of it`, () => {
      assert.equal(neutralised(cell as string), exported);
    });
  }

  for (const value of [
    'Lovelace',
    "'s-Hertogenbosch",
    "'=already quoted",
    "''+1",
    '',
    'a=b',
    '1+1',
    "Berlin;'=1+1",
    "a;''-b",
    'Rue du Lac, 3',
    "a;'b",
    '\t\t=',
  ]) {
    it(`read back ${JSON.stringify(value)} as it was exported`, () => {
      assert.equal(restored(neutralised(value)), value);
    });
  }

  it('neutralise every text cell of an exported user, lists and nested objects included, and undo it on import', () => {
    const attributes = {
      email: 'ada@example.com',
      familyName: '=cmd|" /C calc"!A0',
      telephone: '+1 518 555 0100',
      address: { streetAddress: '@home' },
      newsletters: ['-daily', 'weekly'],
    };
    const row = forSpreadsheets(flatten(attributes));
    assert.deepEqual(row, {
      email: 'ada@example.com',
      familyName: `'=cmd|" /C calc"!A0`,
      telephone: "'+1 518 555 0100",
      'address.streetAddress': "'@home",
      newsletters: "'-daily;weekly",
    });
    assert.deepEqual(unflatten(row as Record<string, string>), attributes);
  });

  it("read a site licence's ranges and domains back as lists, as export joined them", () => {
    const cells = flatten({
      email: 'a@example.com',
      subscription: { license: 'site', ipRanges: ['10.0.0.0/8', '2001:db8::/32'], emailDomains: ['example.edu'] },
    });
    assert.equal(cells['subscription.ipRanges'], '10.0.0.0/8;2001:db8::/32');
    assert.deepEqual(unflatten(cells as Record<string, string>), {
      email: 'a@example.com',
      subscription: { license: 'site', ipRanges: ['10.0.0.0/8', '2001:db8::/32'], emailDomains: ['example.edu'] },
    });
  });

  it('leave every cell as it is for machines, where an apostrophe would become part of the value', () => {
    const attributes = { telephone: '+1 518 555 0100', address: { streetAddress: '=1+1' }, newsletters: ['-daily'] };
    assert.deepEqual(flatten(attributes), {
      telephone: '+1 518 555 0100',
      'address.streetAddress': '=1+1',
      newsletters: '-daily',
    });
  });
});
