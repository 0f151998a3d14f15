/**
 * Lapsing: subscriptions whose dateEnded has passed become expired, each once, with its
 * `subscription.expired` event. Run by `circulation lapse`, or every LAPSE_INTERVAL_SECONDS by a
 * serving process (any number of processes may do so at once).
 */
import { nowInSeconds } from '../domain/dates.js';
import type { Store } from '../store/port.js';

const BATCH = 500;
export const LAPSE_AUDIT = { actor: 'lapse', attributes: ['expired'] } as const;

/**
 * Lapses every subscription due now, in batches, and forgets the pending start of those that
 * have begun (so that they join the index of started ones); answers how many lapsed.
 */
export async function lapseDue(store: Store, now = nowInSeconds()): Promise<number> {
  await store.clearPendingStarts(now);
  let total = 0;
  for (;;) {
    const lapsed = await store.lapseSubscriptions(now, LAPSE_AUDIT, BATCH);
    total += lapsed;
    if (lapsed < BATCH) return total;
  }
}
