/**
 * The service key, and the keys derived from it for every keyed hash the service keeps: the
 * webhook key (what each webhook's signing secret is derived from), the fingerprint key (what the
 * fingerprints of idempotent requests are keyed with), the link key (what signs the links a
 * reader follows without a credential: confirming a newsletter, unsubscribing) and the device key
 * (what the console's known-device cookies are signed with). None of them is ever in the
 * database, so a copy of the database alone signs nothing and confirms no guess.
 *
 * Where the service key comes from, the first that applies:
 * - SERVICE_SECRET_KEY;
 * - WEBHOOK_SECRET_KEY, the name it had when webhooks were its only use (it keeps working);
 * - with a SQLite file, the key in `webhook-secret.key` beside it (made on the first start,
 *   readable by its owner only): the processes of one file share it;
 * - with an in-memory SQLite database, a new key each start, as the database is new too.
 * With PostgreSQL the processes may run on different machines, which no file can serve: without
 * either setting there is no service key, and what needs one (webhooks, idempotency keys) is
 * refused with a 503 that names the setting.
 *
 * The webhook key is WEBHOOK_SECRET_KEY when it is set, otherwise the service key itself, as it
 * always was, so that no existing webhook's secret changes. Every other key is derived with HKDF
 * under a name of its own.
 */
import { hkdfSync, randomBytes } from 'node:crypto';
import { linkSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { DatabaseConfig } from '../store/open.js';

const KEY_FILE = 'webhook-secret.key';

export interface ServiceKeys {
  /** What every webhook's signing secret is derived from; undefined without a service key. */
  webhook: Buffer | undefined;
  /** What request fingerprints are keyed with; undefined without a service key. */
  fingerprint: Buffer | undefined;
  /** What signs readers' newsletter links (domain/consent-links.ts); undefined without a service key. */
  links: Buffer | undefined;
  /** What the console's known-device cookies are signed with (use-cases/staff/devices.ts); undefined without a service key. */
  device: Buffer | undefined;
}

export interface KeySettings {
  /** SERVICE_SECRET_KEY. */
  serviceKey: string | undefined;
  /** WEBHOOK_SECRET_KEY. */
  webhookKey: string | undefined;
}

export function serviceKeysOf(settings: KeySettings, database: DatabaseConfig): ServiceKeys {
  const root = serviceKey(settings, database);
  if (!root) return { webhook: undefined, fingerprint: undefined, links: undefined, device: undefined };
  return {
    webhook: settings.webhookKey === undefined ? root : Buffer.from(settings.webhookKey, 'utf8'),
    fingerprint: derivedKey(root, 'circulation request fingerprints'),
    links: derivedKey(root, 'circulation reader links'),
    device: derivedKey(root, 'circulation console known devices'),
  };
}

function serviceKey(settings: KeySettings, database: DatabaseConfig): Buffer | undefined {
  const setting = settings.serviceKey ?? settings.webhookKey;
  if (setting !== undefined) return Buffer.from(setting, 'utf8');
  if (database.kind === 'postgres') return undefined;
  if (database.path === ':memory:') return randomBytes(32);
  return keyFile(join(dirname(database.path), KEY_FILE));
}

/** A key of its own for one purpose, from the service key: knowing it tells nothing of the others. */
export function derivedKey(root: Buffer, purpose: string): Buffer {
  return Buffer.from(hkdfSync('sha256', root, Buffer.alloc(0), purpose, 32));
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
  if (key.length < 32) throw new Error(`${path} does not hold a service key; remove it to have a new one made`);
  return key;
}
