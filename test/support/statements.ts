/**
 * The SQL a piece of work actually sends: every statement any pg client runs while it runs, with
 * its parameters, so a test can examine the statements themselves (their plans, on Citus) rather
 * than copies of them that could drift from the code.
 */
import pg from 'pg';

export interface Statement {
  text: string;
  values: unknown[];
}

/** Runs `work`, answering what it answered and every statement sent meanwhile, in order. */
export async function recordStatements<T>(work: () => Promise<T>): Promise<{ result: T; statements: Statement[] }> {
  const statements: Statement[] = [];
  const query = pg.Client.prototype.query;
  // pg's overloads cannot be spelled through a wrapper: the arguments go on as they came.
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const [first, second] = args;
    if (typeof first === 'string') statements.push({ text: first, values: Array.isArray(second) ? second : [] });
    else if (first && typeof first === 'object' && 'text' in first) {
      const config = first as { text: string; values?: unknown[] };
      statements.push({ text: config.text, values: config.values ?? (Array.isArray(second) ? second : []) });
    }
    return (query as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof query;
  try {
    return { result: await work(), statements };
  } finally {
    pg.Client.prototype.query = query;
  }
}
