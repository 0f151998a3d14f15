/**
 * The webhook key: what every webhook's signing secret is derived from (see domain/webhooks.ts).
 * Every process that serves or delivers webhooks must have the same one.
 *
 * - WEBHOOK_SECRET_KEY, when set, is the key.
 * - Otherwise, with a SQLite file, the key is kept in `webhook-secret.key` beside it (made on the
 *   first start, readable by its owner only): the processes of one file share it.
 * - With an in-memory SQLite database, a new key each start, as the database is new too.
 * - With PostgreSQL the processes may run on different machines, which no file can serve:
 *   without WEBHOOK_SECRET_KEY there is no key, and webhooks cannot be created or delivered.
 */
import { randomBytes } from 'node:crypto';
import { linkSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { DatabaseConfig } from '../config.js';

const KEY_FILE = 'webhook-secret.key';

export function webhookKeyOf(secretKey: string | undefined, database: DatabaseConfig): Buffer | undefined {
  if (secretKey !== undefined) return Buffer.from(secretKey, 'utf8');
  if (database.kind === 'postgres') return undefined;
  if (database.path === ':memory:') return randomBytes(32);
  return keyFile(join(dirname(database.path), KEY_FILE));
}

/**
 * Reads the key file, or makes it when there is none: written aside and linked into place, so that
 * of two first starts one makes it and neither reads it half written.
 */
function keyFile(path: string): Buffer {
  const draft = `${path}.${process.pid}.tmp`;
  try {
    writeFileSync(draft, randomBytes(32).toString('base64') + '\n', { mode: 0o600 });
    linkSync(draft, path);
  } catch (error) {
    if ((error as { code?: string }).code !== 'EEXIST') throw error;
  } finally {
    rmSync(draft, { force: true });
  }
  const key = Buffer.from(readFileSync(path, 'utf8').trim(), 'base64');
  if (key.length < 32) throw new Error(`${path} does not hold a webhook key; remove it to have a new one made`);
  return key;
}
