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
import { pruneExpired, type RetentionSettings } from './retention.js';
import { forgetStartsThatCame } from './starts.js';

export interface JobSettings {
  /** How often to lapse subscriptions past their dateEnded; 0 never. */
  lapseIntervalSeconds: number;
  /** How long sign-in attempts count: after that they are forgotten. */
  signInWindowSeconds: number;
  /** Console sessions idle this long are forgotten. */
  consoleIdleSeconds: number;
  /** Console sessions begun this long ago are forgotten, however they were used. */
  consoleMaxAgeSeconds: number;
  /** How often to remove what has outlived its retention; 0 never. */
  retentionIntervalSeconds: number;
  retention: RetentionSettings;
}

/** Sign-in windows and reset tokens end within minutes: they are forgotten soon after. */
const FORGET_INTERVAL_SECONDS = 60;

/**
 * The starts that have come are forgotten whether or not this process lapses subscriptions: until
 * then each read by what a started subscription gives reads them one by one (starts.ts).
 */
const STARTS_INTERVAL_SECONDS = 60;

export interface Jobs {
  /** Starts no more runs; settles once the runs under way have ended, so the store can then close. */
  stop(): Promise<void>;
}

export function startJobs(store: Store, settings: JobSettings, log: Pick<Logger, 'info' | 'error'>): Jobs {
  const timers: NodeJS.Timeout[] = [];
  const underWay = new Set<Promise<void>>();
  /** Runs `job` every `seconds`, never two runs at once; a failure is logged and the next run tries again. */
  const every = (seconds: number, name: string, job: () => Promise<void>) => {
    if (seconds === 0) return;
    let running: Promise<void> | undefined;
    const run = async () => {
      try {
        await job();
      } catch (error) {
        log.error({ err: error }, `${name} failed; trying again at the next interval`);
      }
    };
    const start = () => {
      if (running) return;
      const current = run().finally(() => {
        underWay.delete(current);
        running = undefined;
      });
      running = current;
      underWay.add(current);
    };
    timers.push(setInterval(start, seconds * 1000).unref());
  };
  every(settings.lapseIntervalSeconds, 'lapsing', async () => {
    const lapsed = await lapseDue(store);
    if (lapsed > 0) log.info({ lapsed }, 'subscriptions lapsed');
  });
  every(STARTS_INTERVAL_SECONDS, 'forgetting the starts that have come', async () => {
    await forgetStartsThatCame(store);
  });
  every(FORGET_INTERVAL_SECONDS, 'forgetting expired sign-in attempts and reset tokens', async () => {
    await forgetExpired(store, settings.signInWindowSeconds, nowInSeconds(), {
      idleSeconds: settings.consoleIdleSeconds,
      maxAgeSeconds: settings.consoleMaxAgeSeconds,
    });
  });
  every(settings.retentionIntervalSeconds, 'pruning', async () => {
    const pruned = await pruneExpired(store, settings.retention);
    if (Object.values(pruned).some((n) => n > 0)) log.info(pruned, 'pruned what outlived its retention');
  });
  return {
    async stop() {
      for (const timer of timers) clearInterval(timer);
      await Promise.all(underWay);
    },
  };
}
