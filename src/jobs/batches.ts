/**
 * The jobs work a small batch at a time, so that no statement holds locks (or, on SQLite, the
 * event loop) for long, and requests are served between batches.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';

/** Rows a batch handles at most: a few milliseconds of work on either store. */
export const BATCH = 500;

/**
 * Runs `batch`, which handles at most `limit` rows and answers how many it handled, until one
 * handles none (a batch that skipped rows another process held may handle fewer than `limit`
 * with more to come); answers the total.
 */
export async function inBatches(batch: (limit: number) => Promise<number>, limit = BATCH): Promise<number> {
  let total = 0;
  for (;;) {
    const handled = await batch(limit);
    total += handled;
    if (handled === 0) return total;
    await nextTurn();
  }
}
