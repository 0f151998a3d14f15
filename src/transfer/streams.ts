/**
 * What import and export share: the two formats, writing with back-pressure, and grouping
 * subscriptions by their user.
 */
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import type { StoredSubscription } from '../domain/subscription.js';

export type Format = 'ndjson' | 'csv';

/** Writes a chunk, waiting for the stream to drain when its buffer is full. */
export async function write(out: Writable, chunk: string): Promise<void> {
  if (!out.write(chunk)) await once(out, 'drain');
}

export function groupByUser(subscriptions: readonly StoredSubscription[]): Map<string, StoredSubscription[]> {
  const byUser = new Map<string, StoredSubscription[]>();
  for (const s of subscriptions) {
    const list = byUser.get(s.userId);
    if (list) list.push(s);
    else byUser.set(s.userId, [s]);
  }
  return byUser;
}
