/**
 * How much CPU a process of this machine has used, read from Linux's /proc: what the benchmark
 * (run.ts) and the floor (floor.ts) divide by the requests a turn served.
 */
import { readFileSync } from 'node:fs';

/** Linux counts a process's CPU time in ticks of 10 ms (USER_HZ 100). */
const MICROS_PER_TICK = 10_000;

/**
 * The CPU time, user and system, that a process has used so far, in µs, with that of its children
 * it has waited for when `reaped`; 0 once it has ended.
 */
export function cpuMicros(pid: number, { reaped = false } = {}): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // After the command's name (in parentheses, which may hold spaces): utime and stime are 12th
    // and 13th, cutime and cstime (the children's) 14th and 15th.
    const fields = stat
      .slice(stat.lastIndexOf(')') + 2)
      .split(' ')
      .slice(11, reaped ? 15 : 13);
    return fields.reduce((sum, ticks) => sum + Number(ticks), 0) * MICROS_PER_TICK;
  } catch {
    return 0;
  }
}
