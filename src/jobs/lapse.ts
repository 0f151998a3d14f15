/**
 * Lapsing: subscriptions whose dateEnded has passed become expired, each once, with its
 * `subscription.expired` event. Run by `circulation lapse`, or every LAPSE_INTERVAL_SECONDS by a
 * serving process (any number of processes may do so at once).
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import { nowInSeconds } from '../domain/dates.js';
import type { Store } from '../store/port.js';

const BATCH = 500;
export const LAPSE_AUDIT = { actor: 'lapse', attributes: ['expired'] } as const;

/**
 * Lapses every subscription due now and forgets the pending start of those that have begun (so
 * that they join the index of started ones); answers how many lapsed. Both go in batches, and
 * other requests are served between them: SQLite's statements run on the event loop, and a day
 * on which a publisher's whole print run renews could otherwise hold it for seconds.
 */
export async function lapseDue(store: Store, now = nowInSeconds(), batch = BATCH): Promise<number> {
  while ((await store.clearPendingStarts(now, batch)) === batch) await nextTurn();
  let total = 0;
  for (;;) {
    const lapsed = await store.lapseSubscriptions(now, LAPSE_AUDIT, batch);
    total += lapsed;
    if (lapsed < batch) return total;
    await nextTurn();
  }
}
