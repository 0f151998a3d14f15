/**
 * A resource's JSON text partly kept on its row (store/sql/json-text.ts, `keptText`): which
 * stretches are kept, in which columns, and how the resource is then read and put together.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { raw, sql } from '../../src/store/sql/builder.js';
import { Beyond, JSON_TEXT, keptText, type Piece } from '../../src/store/sql/json-text.js';

const SQLITE = JSON_TEXT.sqlite;

const written = { column: 'doc', write: (value: unknown) => `[${String(value)}]` };

/** `{"a":<a>,"b":<from another table>,"c":"x","d":<written here>,"e":<e>}` */
const PIECES: Piece[] = [
  '{"a":',
  raw('a_sql'),
  ',"b":',
  new Beyond(raw('b_sql')),
  ',"c":"x"',
  ',"d":',
  written,
  ',"e":',
  raw('e_sql'),
  '}',
];

describe('a resource text kept on its row', () => {
  it('keeps each stretch its row writes in a column of its own, in the order of the text', () => {
    const { kept } = keptText(PIECES, 'kept', SQLITE);
    assert.deepEqual(
      kept.map((stretch) => [stretch.column, stretch.sql.render('sqlite').text]),
      [
        ['kept_0', `'{"a":' || a_sql || ',"b":'`],
        ['kept_1', `',"e":' || e_sql || '}'`],
      ],
    );
  });

  it('reads the kept columns with what comes from beyond the row, plain text and values written here between them', () => {
    const { read } = keptText(PIECES, 'kept', SQLITE);
    assert.equal(read.columns.render('sqlite').text, `concat(kept_0, b_sql, ',"c":"x","d":'), doc, kept_1`);
    assert.equal(read.assemble(['id', '{"a":1,"b":', 2, ',"e":3}'], 1), '{"a":1,"b":[2],"e":3}');
  });

  it('keeps nothing of a text its row writes none of', () => {
    const { kept, read } = keptText(['{"b":', new Beyond(raw('b_sql')), '}'], 'kept', SQLITE);
    assert.deepEqual(kept, []);
    assert.equal(read.columns.render('sqlite').text, `concat('{"b":', b_sql, '}')`);
  });

  it('reads the pieces of a stretch joined by concat() on SQLite and by || on PostgreSQL, and keeps them joined by ||', () => {
    const pieces = ['{"b":', new Beyond(raw('b_sql')), ',"a":', raw('a_sql'), '}'];
    const sqlite = keptText(pieces, 'kept', SQLITE);
    const postgres = keptText(pieces, 'kept', JSON_TEXT.postgres);
    assert.equal(sqlite.read.columns.render('sqlite').text, `concat('{"b":', b_sql, kept_0)`);
    assert.equal(postgres.read.columns.render('postgres').text, `'{"b":' || b_sql || kept_0`);
    for (const { kept } of [sqlite, postgres])
      assert.equal(kept[0]?.sql.render('sqlite').text, `',"a":' || a_sql || '}'`);
  });

  it('refuses to keep a stretch that takes a parameter, as a trigger has none to give', () => {
    assert.throws(
      () => keptText(['{"a":', sql`${1}`, '}'], 'kept', SQLITE),
      /the kept stretch kept_0 takes parameters/,
    );
  });
});
