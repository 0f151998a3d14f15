/**
 * The SQL template builder as a rule (src/store/sql/builder.ts), without a database: every value
 * a parameter in the order written, the placeholders of each dialect, fragments spliced with
 * their values, and the joins and WHERE that filters are built of. test/store/query-snapshots.test.ts
 * shows the statements the builders make of it.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { join, raw, sql, where } from '../../src/store/sql/builder.js';

describe('the SQL template builder', () => {
  it('keeps every value as a parameter, in order, never as text', () => {
    const statement = sql`SELECT id FROM users WHERE email = ${"x' OR '1'='1"} AND id > ${7}`;
    assert.deepEqual(statement.render('sqlite'), {
      text: 'SELECT id FROM users WHERE email = ? AND id > ?',
      values: ["x' OR '1'='1", 7],
    });
    assert.deepEqual(statement.render('postgres'), {
      text: 'SELECT id FROM users WHERE email = $1 AND id > $2',
      values: ["x' OR '1'='1", 7],
    });
  });

  it('renders a statement without values as its text', () => {
    assert.deepEqual(sql`SELECT 1`.render('postgres'), { text: 'SELECT 1', values: [] });
    assert.deepEqual(raw('').render('sqlite'), { text: '', values: [] });
  });

  it('splices a fragment with its values where it stands, numbering the placeholders across both', () => {
    const condition = sql`status = ${'active'} AND at < ${100}`;
    const statement = sql`SELECT * FROM s WHERE user_id = ${42} AND ${condition} LIMIT ${101}`;
    assert.deepEqual(statement.render('postgres'), {
      text: 'SELECT * FROM s WHERE user_id = $1 AND status = $2 AND at < $3 LIMIT $4',
      values: [42, 'active', 100, 101],
    });
    assert.deepEqual(
      statement.render('sqlite').text,
      'SELECT * FROM s WHERE user_id = ? AND status = ? AND at < ? LIMIT ?',
    );
  });

  it('splices a fragment that begins or ends with a value, and one at either end of a statement', () => {
    const bound = sql`${1} < x AND x < ${2}`;
    assert.deepEqual(sql`${bound}`.render('postgres'), { text: '$1 < x AND x < $2', values: [1, 2] });
    assert.deepEqual(sql`(${bound}) OR ${sql`${3}`}`.render('postgres'), {
      text: '($1 < x AND x < $2) OR $3',
      values: [1, 2, 3],
    });
  });

  it('leaves a fragment as it was once spliced, to be used again', () => {
    const condition = sql`id = ${5}`;
    sql`SELECT ${condition} AND ${condition}`.render('postgres');
    assert.deepEqual(condition.render('postgres'), { text: 'id = $1', values: [5] });
  });

  it('keeps a value that is nothing as a parameter too', () => {
    assert.deepEqual(sql`x = ${null} OR y = ${undefined}`.render('sqlite'), {
      text: 'x = ? OR y = ?',
      values: [null, undefined],
    });
  });

  it('splices raw text as it is, without a parameter', () => {
    assert.deepEqual(sql`SELECT ${raw('id, email')} FROM users`.render('postgres'), {
      text: 'SELECT id, email FROM users',
      values: [],
    });
  });

  it('joins fragments by the separator, one as it is, and none as what is given for none', () => {
    const parts = [sql`a = ${1}`, sql`b = ${2}`, sql`c = ${3}`];
    assert.deepEqual(join(parts, ' OR ').render('postgres'), { text: 'a = $1 OR b = $2 OR c = $3', values: [1, 2, 3] });
    assert.deepEqual(join(parts.slice(0, 1), ' OR ').render('postgres'), { text: 'a = $1', values: [1] });
    assert.deepEqual(join([], ' OR ').render('postgres'), { text: '', values: [] });
    assert.deepEqual(join([], ' OR ', raw('FALSE')).render('postgres'), { text: 'FALSE', values: [] });
  });

  it('writes WHERE and the conditions joined by AND, or nothing when there are none', () => {
    assert.deepEqual(where([sql`a = ${1}`, sql`b = ${2}`]).render('sqlite'), {
      text: 'WHERE a = ? AND b = ?',
      values: [1, 2],
    });
    assert.deepEqual(where([]).render('sqlite'), { text: '', values: [] });
  });
});
