/**
 * The service key and the keys derived from it: where the key comes from, that every existing
 * webhook key stays as it was, and that each purpose gets a key of its own.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { serviceKeysOf } from '../../src/secrets/service-keys.js';
import type { DatabaseConfig } from '../../src/store/open.js';

const dir = mkdtempSync(join(tmpdir(), 'circulation-keys-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const POSTGRES: DatabaseConfig = {
  kind: 'postgres',
  url: 'postgres://127.0.0.1/x',
  poolSize: 1,
  statementTimeoutMs: 1000,
  connectTimeoutMs: 1000,
};
const sqlite = (path: string): DatabaseConfig => ({ kind: 'sqlite', path, synchronous: 'NORMAL', busyTimeoutMs: 1 });
const SERVICE = 's'.repeat(32);
const WEBHOOK = 'w'.repeat(32);

describe('the service keys', () => {
  it('take SERVICE_SECRET_KEY as the webhook key, and derive a fingerprint key and a link key of their own from it', () => {
    const keys = serviceKeysOf({ serviceKey: SERVICE, webhookKey: undefined }, POSTGRES);
    assert.deepEqual(keys.webhook, Buffer.from(SERVICE));
    assert.equal(keys.fingerprint?.length, 32);
    assert.notDeepEqual(keys.fingerprint, keys.webhook);
    assert.equal(keys.links?.length, 32);
    assert.notDeepEqual(keys.links, keys.webhook);
    assert.notDeepEqual(keys.links, keys.fingerprint);
  });

  it('keep WEBHOOK_SECRET_KEY as the webhook key, as it always was, and as the service key without another', () => {
    const alone = serviceKeysOf({ serviceKey: undefined, webhookKey: WEBHOOK }, POSTGRES);
    assert.deepEqual(alone.webhook, Buffer.from(WEBHOOK));
    const both = serviceKeysOf({ serviceKey: SERVICE, webhookKey: WEBHOOK }, POSTGRES);
    assert.deepEqual(both.webhook, Buffer.from(WEBHOOK));
    assert.deepEqual(
      both.fingerprint,
      serviceKeysOf({ serviceKey: SERVICE, webhookKey: undefined }, POSTGRES).fingerprint,
    );
    assert.notDeepEqual(both.fingerprint, alone.fingerprint);
  });

  it('are none on PostgreSQL without a setting', () => {
    assert.deepEqual(serviceKeysOf({ serviceKey: undefined, webhookKey: undefined }, POSTGRES), {
      webhook: undefined,
      fingerprint: undefined,
      links: undefined,
      device: undefined,
    });
  });

  it('come from a file beside a SQLite database, made once, readable by its owner only, the same on every start', () => {
    const path = join(dir, 'circulation.db');
    const first = serviceKeysOf({ serviceKey: undefined, webhookKey: undefined }, sqlite(path));
    const again = serviceKeysOf({ serviceKey: undefined, webhookKey: undefined }, sqlite(path));
    assert.equal(first.webhook?.length, 32);
    assert.deepEqual(again, first);
    assert.notDeepEqual(first.fingerprint, first.webhook);
    assert.equal(first.device?.length, 32);
    assert.notDeepEqual(first.device, first.fingerprint);
    assert.notDeepEqual(first.device, first.webhook);
    assert.equal(statSync(join(dir, 'webhook-secret.key')).mode & 0o777, 0o600);
  });
});
