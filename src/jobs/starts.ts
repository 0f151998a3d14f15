/**
 * Forgetting the starts that have come. A subscription booked ahead keeps its dateStarted apart
 * (pending_start, an index hint, never in the API) so that the reads by what a started
 * subscription gives leave it out; once the start has passed the hint is cleared here. No answer
 * depends on it (a start that has come and is not yet cleared is read from an index of its own),
 * but that read grows with every start not cleared, so every serving process runs this on a
 * timer of its own, whether it lapses subscriptions or not.
 */
import { nowInSeconds } from '../domain/dates.js';
import type { Store } from '../store/port.js';
import { BATCH, inBatches } from './batches.js';

/** Clears the hint of every subscription whose start has come by `now`, in batches; answers how many. */
export function forgetStartsThatCame(store: Store, now = nowInSeconds(), batch = BATCH): Promise<number> {
  return inBatches((limit) => store.subscriptions.clearPendingStarts(now, limit), batch);
}
