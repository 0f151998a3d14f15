/**
 * Counting what site licences grant (domain/licence-usage.ts) without a write per access check:
 * the checks tally in this process's memory (`app.licenceUsage.count`), and the tally goes to the
 * store in one batch every `flushMs` and when the app closes. A batch the store refuses (it is
 * unavailable) is given back to the tally and goes with the next; one batch at a time.
 */
import fp from 'fastify-plugin';
import { UsageTally, type UsageVia } from '../../domain/licence-usage.js';
import type { Store } from '../../store/port.js';

/** How often a process adds what it tallied to the store, unless told otherwise. */
export const LICENCE_USAGE_FLUSH_MS = 10_000;

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

export const licenceUsage = fp<{ store: Store; flushMs?: number }>(
  async (app, { store, flushMs = LICENCE_USAGE_FLUSH_MS }) => {
    const tally = new UsageTally();
    let running: Promise<void> = Promise.resolve();

    const flushOnce = async () => {
      const taken = tally.take();
      if (taken.length === 0) return;
      try {
        await store.addLicenceUsage(taken);
      } catch (error) {
        tally.giveBack(taken);
        app.log.warn({ err: error, counts: taken.length }, 'licence usage not added: kept for the next batch');
      }
    };
    // One batch at a time: a flush asked while one runs follows it.
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
