/**
 * The log of a serving process: JSON lines for machines, readable lines when a person watches
 * the terminal. Requests are logged by our own hook, which writes no header and no body, so no
 * secret can reach the log. JSON lines are buffered (up to 4 KiB, flushed every second and on
 * exit) rather than written one system call each: that cost a single-record read a noticeable
 * part of its throughput.
 */
import { pino } from 'pino';

export function logging(level: string) {
  const common = { level, redact: ['req.headers.authorization', 'req.headers.cookie'] };
  if (process.stdout.isTTY) {
    const transport = { target: 'pino-pretty', options: { translateTime: 'SYS:HH:MM:ss.l' } };
    return { options: { ...common, transport }, flush: () => {} };
  }
  const stream = pino.destination({ dest: 1, sync: false, minLength: 4096 });
  const flush = () => {
    try {
      stream.flushSync();
    } catch {
      // Not open yet, or already closed: nothing to flush.
    }
  };
  setInterval(flush, 1000).unref();
  process.on('exit', flush);
  return { options: { ...common, stream }, flush };
}
