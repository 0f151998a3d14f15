/**
 * The jobs a serving process runs on a timer. Each is safe to run from several processes at
 * once (the store hands each piece of work to one of them); a run that fails is logged and the
 * next interval tries again.
 */
import type { Logger } from 'pino';
import { nowInSeconds } from '../domain/dates.js';
import type { Store } from '../store/port.js';
import { forgetExpired } from './forget.js';
import { lapseDue } from './lapse.js';

export interface JobSettings {
  /** How often to lapse subscriptions past their dateEnded; 0 never. */
  lapseIntervalSeconds: number;
  /** How long sign-in attempts count: after that they are forgotten. */
  signInWindowSeconds: number;
}

const FORGET_INTERVAL_SECONDS = 60;

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
  const forget = async () => {
    try {
      await forgetExpired(store, settings.signInWindowSeconds, nowInSeconds());
    } catch (error) {
      log.error({ err: error }, 'forgetting expired sign-in attempts and reset tokens failed; trying again later');
    }
  };
  timers.push(setInterval(() => void forget(), FORGET_INTERVAL_SECONDS * 1000).unref());
  return {
    stop() {
      for (const timer of timers) clearInterval(timer);
    },
  };
}
