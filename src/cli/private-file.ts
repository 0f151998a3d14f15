/**
 * Files a command writes where someone else may have been first (a report beside an import file,
 * the first admin secret beside the database): written to a fresh file of their own, created
 * exclusively, readable by the owner only and never through a link, then renamed into place. A
 * link planted at the path is replaced, never followed; a file already there is replaced whole.
 */
import { once } from 'node:events';
import { constants, createWriteStream, openSync, renameSync, rmSync, type WriteStream } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { basename, dirname, join } from 'node:path';

export interface PrivateFile {
  /** Where to write the file's contents. */
  stream: WriteStream;
  /** Ends the stream and puts the file at its path. */
  commit(): Promise<void>;
  /** Removes what was written, leaving the path as it was. */
  abandon(): void;
}

export function privateFile(path: string): PrivateFile {
  const draft = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
  const fd = openSync(draft, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
  const stream = createWriteStream('', { fd });
  return {
    stream,
    async commit() {
      stream.end();
      await once(stream, 'close');
      renameSync(draft, path);
    },
    abandon() {
      stream.destroy();
      rmSync(draft, { force: true });
    },
  };
}

/** Writes `text` to `path` as a private file (see above). */
export async function writePrivateFile(path: string, text: string): Promise<void> {
  const file = privateFile(path);
  try {
    file.stream.write(text);
    await file.commit();
  } catch (error) {
    file.abandon();
    throw error;
  }
}
