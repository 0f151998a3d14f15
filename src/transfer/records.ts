/**
 * The records of an import file, read as a stream: CSV (a byte-order mark and CRLF line ends, as
 * a spreadsheet writes them, included) or NDJSON. A row that is not a record at all — cells
 * more or fewer than the header's, a quote out of place, a line that is not a JSON object — is
 * answered as broken, with the email it names when one can be read, and the reading goes on.
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { parse as parseCsv, type CsvError } from 'csv-parse';
import { unflatten } from './csv.js';
import type { Format } from './streams.js';

export type FileRecord = { line: number; bytes: number } & (
  { record: Record<string, unknown> } | { broken: { email?: string; problems: string[] } }
);

/** The records of a file in order, each with its line number and the bytes read so far. */
export function fileRecords(path: string, format: Format): AsyncGenerator<FileRecord> {
  return format === 'csv' ? csvRecords(path) : ndjsonRecords(path);
}

/** Something that looks like an email address, in the text of a row that could not be read. */
const EMAIL_LIKE = /[^\s,;"'<>]+@[^\s,;"'<>]+\.[^\s,;"'<>]+/;

/** What is wrong with a CSV row that could not be read as one, in words for the report. */
function csvProblem(error: CsvError, header: readonly string[]): string {
  switch (error.code) {
    case 'CSV_RECORD_INCONSISTENT_COLUMNS':
    case 'CSV_RECORD_INCONSISTENT_FIELDS_LENGTH':
      return `has ${(error.record as unknown[] | undefined)?.length ?? 'another number of'} cells where the header has ${header.length}`;
    case 'CSV_QUOTE_NOT_CLOSED':
      return 'opens a quote that is never closed: the rest of the file is inside it';
    case 'INVALID_OPENING_QUOTE':
    case 'CSV_INVALID_CLOSING_QUOTE':
      return 'has a quote inside a cell; a cell with a quote is quoted as a whole, its quote written twice ("")';
    default:
      return `is not a CSV row (${error.code})`;
  }
}

/**
 * The line breaks in a row's cells: csv-parse counts every CR and LF there as a line of its own,
 * so a CRLF inside a quoted cell (as a spreadsheet writes one) as two.
 */
function breaksIn(cells: readonly unknown[]): { counted: number; extra: number } {
  let counted = 0;
  let extra = 0;
  for (const cell of cells) {
    if (typeof cell !== 'string') continue;
    counted += cell.match(/[\r\n]/g)?.length ?? 0;
    extra += cell.match(/\r\n/g)?.length ?? 0;
  }
  return { counted, extra };
}

async function* csvRecords(path: string): AsyncGenerator<FileRecord> {
  let header: string[] = [];
  // Rows the parser skipped, in line order; reported where they stood among the records.
  const skipped: FileRecord[] = [];
  let bytes = 0;
  // The line the last record or broken row read ended on: a quote never closed is found only
  // at the end of the file, and the row that opened it is the one after.
  let lastLine = 1;
  // How many lines csv-parse has counted too many so far (a CRLF in a cell counts as two).
  let overcounted = 0;
  /** The line a row starts on, from the line csv-parse says it ends on and its cells. */
  const startOf = (lines: number, cells: readonly unknown[]) => {
    const { counted, extra } = breaksIn(cells);
    const start = lines - overcounted - counted;
    overcounted += extra;
    lastLine = start + counted - extra;
    return start;
  };
  const parser = createReadStream(path).pipe(
    parseCsv({
      columns: (names: string[]) => (header = names),
      // Each record (given with its info) with the line it starts on, counted as it is read.
      on_record: (read: { record: Record<string, string> }, { lines }: { lines: number }) => ({
        ...read,
        line: startOf(lines, Object.values(read.record)),
      }),
      info: true,
      raw: true,
      bom: true,
      skip_empty_lines: true,
      skip_records_with_error: true,
      on_skip: (error: CsvError | undefined, raw?: string) => {
        if (!error) return;
        const cells = error.record as string[] | undefined;
        let line: number;
        if (error.code === 'CSV_QUOTE_NOT_CLOSED') line = lastLine + 1;
        else if (
          error.code === 'CSV_RECORD_INCONSISTENT_COLUMNS' ||
          error.code === 'CSV_RECORD_INCONSISTENT_FIELDS_LENGTH'
        ) {
          line = startOf(Number(error.lines), cells ?? []);
        } else {
          // A quote out of place, found on the line it stands on, before the row has ended.
          line = Number(error.lines) - overcounted;
          lastLine = line;
        }
        const named = cells?.[header.indexOf('email')];
        const email = named && EMAIL_LIKE.test(named) ? named : EMAIL_LIKE.exec(raw ?? '')?.[0];
        const problem = `the row: ${csvProblem(error, header)}`;
        const last = skipped.at(-1);
        // One broken row may be skipped more than once (a stray quote, then what follows it).
        if (last && last.line === line && 'broken' in last) {
          if (!last.broken.problems.includes(problem)) last.broken.problems.push(problem);
        } else skipped.push({ line, bytes, broken: { ...(email ? { email } : {}), problems: [problem] } });
      },
    }),
  );
  for await (const { record, line, info } of parser as AsyncIterable<{
    record: Record<string, string>;
    line: number;
    info: { bytes: number };
  }>) {
    bytes = info.bytes;
    while (skipped[0] && skipped[0].line < line) yield skipped.shift() as FileRecord;
    const { subscription, ...user } = unflatten(record) as Record<string, unknown> & { subscription?: object };
    yield { line, bytes, record: subscription ? { ...user, subscriptions: [subscription] } : user };
  }
  yield* skipped;
}

async function* ndjsonRecords(path: string): AsyncGenerator<FileRecord> {
  let line = 0;
  let bytes = 0;
  for await (const text of createInterface({ input: createReadStream(path), crlfDelay: Infinity })) {
    line += 1;
    bytes += Buffer.byteLength(text) + 1;
    if (text.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(line === 1 ? text.replace(/^\uFEFF/, '') : text);
    } catch {
      yield { line, bytes, broken: { ...emailIn(text), problems: ['the row: not valid JSON'] } };
      continue;
    }
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
      yield { line, bytes, record: value as Record<string, unknown> };
    } else yield { line, bytes, broken: { problems: ['the row: not a JSON object'] } };
  }
}

function emailIn(text: string): { email?: string } {
  const email = EMAIL_LIKE.exec(text)?.[0];
  return email ? { email } : {};
}
