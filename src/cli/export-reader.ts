/**
 * `circulation export-reader ID`: everything held about one reader as one JSON document, the
 * same that GET /users/{id}/data-export answers (use-cases/readers/data-export.ts), for an access or
 * portability request answered by hand. To stdout, or with --output to a file of the owner's
 * alone (it is personal data), written whole or not at all.
 */
import { parseArgs } from 'node:util';
import type { Config } from '../config.js';
import { nowInSeconds } from '../domain/dates.js';
import { readerExport } from '../use-cases/readers/data-export.js';
import type { Store } from '../store/port.js';
import { CommandError, onlyId, withStore, type Command } from './command.js';
import { privateFile } from './private-file.js';

const USAGE = `Usage: circulation export-reader ID [--output FILE]
  Writes everything held about the reader with this id as one JSON document, as
  GET /users/{id}/data-export answers it: the user, subscriptions, holds, temporary addresses,
  delivery complaints, newsletter consents with their history, sign-in and password reset times,
  privacy requests, the audit entries about them and their webhook deliveries (ids and times).
  Never a secret or a hash. To stdout, or --output FILE: a file only its owner may read, in place
  once it is whole.
`;

export const exportReaderCommand: Command = {
  summary: "write everything held about one reader as one JSON document (a reader's access request)",
  usage: USAGE,
  run: withStore(exportReaderToOutput),
};

async function exportReaderToOutput(store: Store, args: readonly string[], config: Config): Promise<void> {
  const { values, positionals } = parseArgs({
    args: [...args],
    options: { output: { type: 'string' } },
    strict: true,
    allowPositionals: true,
  });
  const id = onlyId(positionals, USAGE);
  const found = await readerExport(store, id, { now: nowInSeconds(), zone: config.print.calendar.zone });
  if (!found) throw new CommandError(`there is no user ${id}: nothing was exported`);
  if (values.output === undefined) {
    await found.writeTo(process.stdout);
    return;
  }
  const file = privateFile(values.output);
  try {
    await found.writeTo(file.stream);
    await file.commit();
  } catch (error) {
    file.abandon();
    throw error;
  }
  process.stderr.write(`circulation: reader ${id} exported to ${values.output}\n`);
}
