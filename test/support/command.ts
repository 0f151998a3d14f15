/**
 * A `circulation` command run in this process, as the command line runs it but without starting
 * one: for what a command decides, where a process would cost a second of loading each time.
 */
import { PassThrough } from 'node:stream';
import type { Command } from '../../src/cli/command.js';
import { loadConfig } from '../../src/config.js';

/** What `work` writes to stdout and stderr, which it sees as process.stdout and process.stderr. */
export async function written(work: () => Promise<void>): Promise<{ stdout: string; stderr: string }> {
  const streams = { stdout: new PassThrough(), stderr: new PassThrough() };
  const text = { stdout: '', stderr: '' };
  const originals = {
    stdout: Object.getOwnPropertyDescriptor(process, 'stdout') as PropertyDescriptor,
    stderr: Object.getOwnPropertyDescriptor(process, 'stderr') as PropertyDescriptor,
  };
  for (const name of ['stdout', 'stderr'] as const) {
    streams[name].on('data', (chunk: Buffer) => (text[name] += chunk.toString('utf8')));
    Object.defineProperty(process, name, { value: streams[name], configurable: true });
  }
  try {
    await work();
  } finally {
    for (const name of ['stdout', 'stderr'] as const) Object.defineProperty(process, name, originals[name]);
  }
  return text;
}

/**
 * Runs `command ARGS` on the database `databaseUrl`, with the settings the command line would read
 * from this environment: what it threw (undefined when it ended well) and what it wrote to stdout.
 */
export async function runInProcess(
  command: Command,
  databaseUrl: string,
  args: readonly string[],
): Promise<{ thrown: unknown; stdout: string }> {
  const config = loadConfig({ ...process.env, DATABASE_URL: databaseUrl });
  let thrown: unknown;
  const { stdout } = await written(() =>
    command.run(config, args).catch((error: unknown) => {
      thrown = error;
    }),
  );
  return { thrown, stdout };
}
