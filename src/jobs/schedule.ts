/**
 * The jobs a serving process runs on a timer. Each is safe to run from several processes at
 * once (the store hands each piece of work to one of them); a run that fails is logged and the
 * next interval tries again.
 */
import type { Logger } from 'pino';
import type { Store } from '../store/port.js';
import { lapseDue } from './lapse.js';

export interface JobSettings {
  /** How often to lapse subscriptions past their dateEnded; 0 never. */
  lapseIntervalSeconds: number;
}

export interface Jobs {
  stop(): void;
}

export function startJobs(store: Store, settings: JobSettings, log: Pick<Logger, 'info' | 'error'>): Jobs {
  const timers: NodeJS.Timeout[] = [];
  if (settings.lapseIntervalSeconds > 0) {
    const lapse = async () => {
      try {
        const lapsed = await lapseDue(store);
        if (lapsed > 0) log.info({ lapsed }, 'subscriptions lapsed');
      } catch (error) {
        log.error({ err: error }, 'lapsing failed; trying again at the next interval');
      }
    };
    timers.push(setInterval(() => void lapse(), settings.lapseIntervalSeconds * 1000).unref());
  }
  return {
    stop() {
      for (const timer of timers) clearInterval(timer);
    },
  };
}
