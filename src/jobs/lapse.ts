/**
 * Lapsing: subscriptions whose dateEnded has passed become expired, each once, with its
 * `subscription.expired` event. Run by `circulation lapse`, or every LAPSE_INTERVAL_SECONDS by a
 * serving process (any number of processes may do so at once).
 */
import { nowInSeconds } from '../domain/dates.js';
import type { Store } from '../store/port.js';
import { BATCH, inBatches } from './batches.js';

export const LAPSE_AUDIT = { actor: 'lapse', attributes: ['expired'] } as const;

/**
 * Lapses every subscription due now, in batches (batches.ts): a day on which a publisher's whole
 * print run renews would otherwise hold the service for seconds. Answers how many lapsed.
 */
export function lapseDue(store: Store, now = nowInSeconds(), batch = BATCH): Promise<number> {
  return inBatches((limit) => store.subscriptions.lapse(now, LAPSE_AUDIT, limit), batch);
}
