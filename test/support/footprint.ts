/**
 * What a request costs a service process: how far its resident memory rises (sampled from /proc,
 * with the kernel's own peak between samples), and how long its event loop is blocked (from the
 * service's own metrics, which measure it with monitorEventLoopDelay and start afresh each read).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import type { Client } from './service.js';

const MB = 1024 * 1024;

function status(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(match?.[1] ?? 0) * 1024;
}

export class ResidentMemory {
  private baseline = 0;
  private peak = 0;
  private readonly timer: NodeJS.Timeout;

  /** Samples the resident memory of process `pid` every 10 ms until stopped. */
  constructor(private readonly pid: number) {
    this.timer = setInterval(() => this.sample(), 10);
    this.timer.unref();
    this.rebase();
  }

  private sample(): void {
    try {
      this.peak = Math.max(this.peak, status(this.pid, 'VmRSS'), status(this.pid, 'VmHWM'));
    } catch {
      // The process has ended: nothing more to sample.
    }
  }

  /** From now on, rises are measured from the resident memory as it is now. */
  rebase(): void {
    try {
      // Resets the kernel's peak (VmHWM) to the present size, so it records peaks from here on.
      writeFileSync(`/proc/${this.pid}/clear_refs`, '5');
    } catch {
      // Not allowed here: the samples alone measure the peak.
    }
    this.baseline = status(this.pid, 'VmRSS');
    this.peak = this.baseline;
  }

  /** How far above the baseline the resident memory has risen at most, in MB. */
  riseMb(): number {
    this.sample();
    return (this.peak - this.baseline) / MB;
  }

  stop(): void {
    clearInterval(this.timer);
  }
}

/** How often the service samples its event loop (prom-client's default): an idle loop shows this much. */
const RESOLUTION_MS = 10;

/** The longest the service's event loop was blocked since the last call, in milliseconds. */
export async function loopBlockedMs(client: Client): Promise<number> {
  const metrics = await fetch(`${client.baseUrl}/metrics`, {
    headers: client.credential === null ? {} : { authorization: `Bearer ${client.credential}` },
  });
  const text = await metrics.text();
  const max = /^nodejs_eventloop_lag_max_seconds (\S+)/m.exec(text);
  if (!max) throw new Error(`no event loop metrics in ${text.slice(0, 200)}`);
  // The longest interval between two samples, less the interval an idle loop has.
  return Math.max(0, Number(max[1]) * 1000 - RESOLUTION_MS);
}
