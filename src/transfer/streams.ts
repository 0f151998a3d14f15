/**
 * What import and export share: the two formats, and writing with back-pressure.
 */
import { once } from 'node:events';
import type { Writable } from 'node:stream';

export type Format = 'ndjson' | 'csv';

/** Writes a chunk, waiting for the stream to drain when its buffer is full. */
export async function write(out: Writable, chunk: string): Promise<void> {
  if (!out.write(chunk)) await once(out, 'drain');
}
