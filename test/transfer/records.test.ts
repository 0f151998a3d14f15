/**
 * Reading an import file: a CSV row that is not a row (cells more or fewer than the header's, a
 * quote out of place) is answered as broken, with its line and the email it names, and reading
 * goes on; NDJSON likewise. And who an import has seen, kept as ranges of ids.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { IdRanges } from '../../src/transfer/id-ranges.js';
import { fileRecords, type FileRecord } from '../../src/transfer/records.js';
import type { Format } from '../../src/transfer/streams.js';

const dir = mkdtempSync(join(tmpdir(), 'circulation-records-'));
after(() => rmSync(dir, { recursive: true, force: true }));

async function read(text: string, format: Format): Promise<FileRecord[]> {
  const path = join(dir, `file-${Math.random()}.${format}`);
  writeFileSync(path, text);
  const all: FileRecord[] = [];
  for await (const record of fileRecords(path, format)) all.push(record);
  return all;
}

/** Each record as [line, the email, or what was wrong]. */
const summary = (records: FileRecord[]) =>
  records.map((r) => ('record' in r ? [r.line, r.record.email] : [r.line, r.broken.email, ...r.broken.problems]));

describe('reading import files', () => {
  it('reads a CSV file with a byte-order mark and CRLF line ends as a spreadsheet writes it', async () => {
    const records = await read(
      '\uFEFFemail,familyName\r\nann@example.com,Ames\r\nbo@example.com,"Bell, Jr."\r\n',
      'csv',
    );
    assert.deepEqual(
      records.map((r) => 'record' in r && r.record),
      [
        { email: 'ann@example.com', familyName: 'Ames' },
        { email: 'bo@example.com', familyName: 'Bell, Jr.' },
      ],
    );
  });

  it('answers rows of too few or too many cells as broken, in their place among the others', async () => {
    const records = await read(
      'email,familyName,x\na@example.com,A,1\nb@example.com,B\nc@example.com,C,1,2\nd@example.com,D,1\n',
      'csv',
    );
    assert.deepEqual(summary(records), [
      [2, 'a@example.com'],
      [3, 'b@example.com', 'the row: has 2 cells where the header has 3'],
      [4, 'c@example.com', 'the row: has 4 cells where the header has 3'],
      [5, 'd@example.com'],
    ]);
  });

  it('answers a row with a stray quote as broken once, and reads the rows after it', async () => {
    const records = await read(
      'email,familyName\na@example.com,O"Brien\nb@example.com,"Say "hi" now"\nc@example.com,C\n',
      'csv',
    );
    assert.deepEqual(
      summary(records).map(([line, email, ...problems]) => [line, email, problems.length]),
      [
        [2, 'a@example.com', 1],
        [3, 'b@example.com', 1],
        [4, 'c@example.com', 0],
      ],
    );
  });

  it('numbers each row by the line it starts on, after cells holding a CRLF or an LF', async () => {
    const records = await read(
      'email,familyName,x\r\n' +
        'a@example.com,"Two\r\nlines",1\r\n' +
        '\r\n' +
        'b@example.com,"Three\nshort\nlines",1\r\n' +
        'c@example.com,C\r\n' +
        'd@example.com,D,1\r\n' +
        'e@example.com,"Open\r\n',
      'csv',
    );
    assert.deepEqual(summary(records), [
      [2, 'a@example.com'],
      [5, 'b@example.com'],
      [8, 'c@example.com', 'the row: has 2 cells where the header has 3'],
      [9, 'd@example.com'],
      [10, 'e@example.com', 'the row: opens a quote that is never closed: the rest of the file is inside it'],
    ]);
  });

  it('numbers a broken row whose own cells hold line breaks by the line it starts on', async () => {
    const records = await read(
      'email,familyName,x\r\na@example.com,"Two\r\nlines"\r\nb@example.com,"One\nmore",1,2\r\nc@example.com,C,1\r\n',
      'csv',
    );
    assert.deepEqual(summary(records), [
      [2, 'a@example.com', 'the row: has 2 cells where the header has 3'],
      [4, 'b@example.com', 'the row: has 4 cells where the header has 3'],
      [6, 'c@example.com'],
    ]);
  });

  it('answers a quote never closed as a broken row at the line it opened on', async () => {
    const records = await read('email,familyName\na@example.com,A\nb@example.com,"Open\nc@example.com,C\n', 'csv');
    assert.deepEqual(summary(records), [
      [2, 'a@example.com'],
      [3, 'b@example.com', 'the row: opens a quote that is never closed: the rest of the file is inside it'],
    ]);
  });

  it('names no email where a broken row has none to read', async () => {
    const [broken] = await read('email,familyName\nnobody,A,extra\n', 'csv');
    assert.ok(broken && 'broken' in broken);
    assert.equal(broken.broken.email, undefined);
  });

  it('answers NDJSON lines that are not JSON objects as broken, with the email they name, and skips a byte-order mark', async () => {
    const records = await read(
      '\uFEFF{"email":"a@example.com"}\n{"email":"b@example.com",\n[1]\n\n{"email":"c@example.com"}\n',
      'ndjson',
    );
    assert.deepEqual(summary(records), [
      [1, 'a@example.com'],
      [2, 'b@example.com', 'the row: not valid JSON'],
      [3, undefined, 'the row: not a JSON object'],
      [5, 'c@example.com'],
    ]);
  });
});

describe('ids kept as ranges', () => {
  it('holds every number added, once, however they come', () => {
    const ranges = new IdRanges();
    const added = [5, 3, 4, 10, 1, 2, 9, 11, 4, 7, 20, 6, 8];
    for (const n of added) ranges.add(n);
    assert.equal(ranges.size, new Set(added).size);
    for (let n = 0; n <= 21; n += 1) assert.equal(ranges.has(n), added.includes(n), String(n));
  });
});
