/**
 * Which test files the suite's time goes to. Preloaded into every test file's process:
 *
 *   TEST_TIMES=/tmp/times.txt node --import tsx --import ./scripts/test-times.mjs --test …
 *   sort -rn /tmp/times.txt | head -20
 *
 * each file appends, as it exits, its wall-clock seconds, its CPU seconds and its path.
 */
import { appendFileSync } from 'node:fs';
import { relative } from 'node:path';

const file = process.argv[1] ?? '';
const log = process.env.TEST_TIMES;
if (log && file.endsWith('.test.ts')) {
  process.on('exit', () => {
    const cpu = process.cpuUsage();
    const seconds = (performance.now() / 1000).toFixed(1);
    const cpuSeconds = ((cpu.user + cpu.system) / 1e6).toFixed(1);
    appendFileSync(log, `${seconds} ${cpuSeconds} ${relative(process.cwd(), file)}\n`);
  });
}
