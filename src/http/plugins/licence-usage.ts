/**
 * Counting what site licences grant (domain/licence-usage.ts) without a write per access check:
 * the checks tally in this process's memory (`app.licenceUsage.count`), and the tally goes to the
 * store every `flushMs` and when the app closes, in batches of at most `batchSize` counts, each its
 * own transaction with the event loop free between them: the counts of thousands of licences added
 * at once would hold SQLite's loop for every one of their upserts. A batch the store refuses (it is unavailable) is given back
 * to the tally with those after it, and they go with the next flush; one flush at a time.
 */
import fp from 'fastify-plugin';
import { UsageTally, type UsageVia } from '../../domain/licence-usage.js';
import type { Store } from '../../store/port.js';

/** How often a process adds what it tallied to the store, unless told otherwise. */
export const LICENCE_USAGE_FLUSH_MS = 10_000;

/** How many counts go to the store in one transaction, unless told otherwise. */
export const LICENCE_USAGE_BATCH_SIZE = 500;

export interface LicenceUsageCounter {
  /** Counts one check that `licence` granted at `at` (epoch seconds) through `via`: memory only. */
  count(licence: { userId: string; id: string }, via: UsageVia, at: number): void;
  /** Adds what was tallied to the store now (the timer does it on its own; tests call it). */
  flush(): Promise<void>;
}

declare module 'fastify' {
  interface FastifyInstance {
    licenceUsage: LicenceUsageCounter;
  }
}

export const licenceUsage = fp<{ store: Store; flushMs?: number; batchSize?: number }>(
  async (app, { store, flushMs = LICENCE_USAGE_FLUSH_MS, batchSize = LICENCE_USAGE_BATCH_SIZE }) => {
    const tally = new UsageTally();
    let running: Promise<void> = Promise.resolve();

    const flushOnce = async () => {
      const taken = tally.take();
      for (let start = 0; start < taken.length; start += batchSize) {
        // A store that adds synchronously (SQLite) would otherwise hold the loop for every batch.
        if (start > 0) await new Promise((resolve) => setImmediate(resolve));
        try {
          await store.licenceUsage.add(taken.slice(start, start + batchSize));
        } catch (error) {
          const left = taken.slice(start);
          tally.giveBack(left);
          app.log.warn({ err: error, counts: left.length }, 'licence usage not added: kept for the next flush');
          return;
        }
      }
    };
    // One flush at a time: a flush asked while one runs follows it.
    const flush = () => (running = running.then(flushOnce));

    const timer = setInterval(() => void flush(), flushMs);
    timer.unref();
    app.decorate('licenceUsage', {
      count: (licence, via, at) => tally.count(licence, via, at),
      flush,
    } satisfies LicenceUsageCounter);
    app.addHook('onClose', async () => {
      clearInterval(timer);
      await flush();
    });
  },
  { name: 'licence-usage' },
);
