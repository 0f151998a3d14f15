/**
 * Which columns a CSV export has: those named, in order, or by default every attribute, and for
 * the print list what a mail house needs; what the `name` column says.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { envelopeName, PRINT_LIST_COLUMNS, selectColumns } from '../../src/transfer/columns.js';
import { USER_CSV_COLUMNS } from '../../src/transfer/csv.js';
import { defaultColumns } from '../../src/transfer/export.js';

describe('the columns of an export', () => {
  it('are those named, in the order given, a group standing for its fields', () => {
    assert.deepEqual(selectColumns('copies,name,address,email'), {
      columns: [
        'copies',
        'name',
        'address.streetAddress',
        'address.unitNumber',
        'address.addressLocality',
        'address.addressRegion',
        'address.addressCountry',
        'address.postalCode',
        'email',
      ],
    });
    assert.deepEqual(selectColumns(' product , worksFor.telephone'), { columns: ['product', 'worksFor.telephone'] });
  });

  it('refuse an unknown name, suggesting the nearest and listing them all', () => {
    const result = selectColumns('name,adress');
    assert.ok('problem' in result);
    assert.match(result.problem, /^names no column "adress" \(did you mean address\?\); the columns are address, /);
    assert.match(result.problem, /newsletters, lastSignInAt, name, product, copies$/);
  });

  it('refuse a column named twice, even through its group, and an empty name', () => {
    assert.deepEqual(selectColumns('address,address.postalCode'), {
      problem: 'names the column address.postalCode twice',
    });
    assert.ok('problem' in selectColumns('name,,product'));
    assert.ok('problem' in selectColumns(''));
  });

  it('are, for whoever receives print, name, address, product and copies: no notes, no contact details', () => {
    for (const resource of ['print', 'print-online'] as const) {
      assert.equal(defaultColumns({ at: 0, resource }), PRINT_LIST_COLUMNS);
    }
    const address = selectColumns('address');
    assert.ok('columns' in address);
    assert.deepEqual(PRINT_LIST_COLUMNS, ['name', ...address.columns, 'product', 'copies']);
  });

  it('are every attribute otherwise, so that the export imports back', () => {
    assert.equal(defaultColumns(undefined), USER_CSV_COLUMNS);
    assert.equal(defaultColumns({ at: 0 }), USER_CSV_COLUMNS);
    assert.equal(defaultColumns({ at: 0, resource: 'online' }), USER_CSV_COLUMNS);
  });

  it('name a reader as an envelope does: the parts that are set, in the order they are said', () => {
    assert.equal(
      envelopeName({
        honorificPrefix: 'Dr.',
        givenName: 'Ada',
        additionalName: 'King',
        familyName: 'Lovelace',
        honorificSuffix: 'PhD',
      }),
      'Dr. Ada King Lovelace PhD',
    );
    assert.equal(envelopeName({ givenName: null, familyName: 'Lovelace', honorificSuffix: ' ' }), 'Lovelace');
  });
});
