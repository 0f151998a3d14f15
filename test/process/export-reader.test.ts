/**
 * `circulation export-reader ID`, run as a command on both stores: it writes the same document as
 * GET /users/{id}/data-export, to stdout or to a file of the owner's alone, naming its database on
 * stderr, and refuses an unknown reader or a call without one id.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { readerExport } from '../../src/use-cases/readers/data-export.js';
import { AUDIT } from '../support/fixtures.js';
import { runCommand } from '../support/process.js';
import { forEachStore, openTestStore, type TestStore } from '../support/stores.js';

const dir = mkdtempSync(join(tmpdir(), 'circulation-export-reader-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** The document without its one moving part, the instant it was made. */
const withoutTime = (text: string) => {
  const { meta } = JSON.parse(text);
  return { ...meta, generatedAt: undefined };
};

forEachStore((kind) => {
  describe('circulation export-reader', () => {
    let store: TestStore;
    let userId: string;
    const passwordHash =
      '$argon2id$v=19$m=19456,t=2,p=1$c29tZXNhbHRzb21lc2FsdA$2p0Bk0J5n0+v8M2H0hQmQ2Gg1jv2nD5YQeHcW0fF3yE';
    before(async () => {
      store = await openTestStore(kind);
      const user = await store.store.users.create(
        { email: `reader-${kind}@example.com`, passwordHash, fields: { familyName: 'Reader' }, newsletters: ['daily'] },
        AUDIT,
      );
      userId = user.id;
    });
    after(() => store.close());

    it('writes the document the API answers to stdout, naming the database on stderr', async () => {
      const result = runCommand(store.databaseUrl, 'export-reader', userId);
      assert.equal(result.status, 0, result.stderr);
      assert.match(result.stderr.split('\n')[0] ?? '', /database/i);
      const found = await readerExport(store.store, userId, { now: 0, zone: 'UTC' });
      assert.ok(found);
      const chunks: string[] = [];
      const { Writable } = await import('node:stream');
      await found.writeTo(new Writable({ write: (chunk, _e, done) => (chunks.push(String(chunk)), done()) }));
      assert.deepEqual(withoutTime(result.stdout), withoutTime(chunks.join('')));
      assert.equal(JSON.parse(result.stdout).meta.user.attributes.email, `reader-${kind}@example.com`);
      assert.ok(!result.stdout.includes(passwordHash), 'the export carries the password hash');
    });

    it('writes it with --output to a file only its owner may read', () => {
      const file = join(dir, `${kind}-reader.json`);
      const result = runCommand(store.databaseUrl, 'export-reader', userId, '--output', file);
      assert.equal(result.status, 0, result.stderr);
      assert.equal(result.stdout, '');
      assert.equal(statSync(file).mode & 0o777, 0o600);
      assert.equal(JSON.parse(readFileSync(file, 'utf8')).meta.user.id, userId);
    });

    it('refuses an unknown reader (1) and a call without exactly one id (2), writing nothing', () => {
      const file = join(dir, `${kind}-nobody.json`);
      const unknown = runCommand(store.databaseUrl, 'export-reader', '987654321', '--output', file);
      assert.equal(unknown.status, 1);
      assert.match(unknown.stderr, /there is no user 987654321/);
      assert.equal(existsSync(file), false);
      for (const args of [[], ['1', '2'], ['x']]) {
        const wrong = runCommand(store.databaseUrl, 'export-reader', ...args);
        assert.equal(wrong.status, 2, args.join(' '));
        assert.match(wrong.stderr, /Usage: circulation export-reader ID/);
        assert.equal(wrong.stdout, '');
      }
    });
  });
});
