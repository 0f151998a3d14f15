/**
 * `circulation import`, `export` and `seed`, run as commands on both stores: the sample files
 * import with the API's error texts for rejected rows, a second import changes nothing, and an
 * export imports back into an empty database as the same users.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { lstatSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { AUDIT } from '../support/fixtures.js';
import { CLI } from '../support/process.js';
import { forEachStore, openTestStore, type TestStore } from '../support/stores.js';

const dir = mkdtempSync(join(tmpdir(), 'circulation-transfer-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function circulation(databaseUrl: string, ...args: string[]) {
  const result = spawnSync(process.execPath, [...CLI, ...args], {
    env: { ...process.env, DATABASE_URL: databaseUrl },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

const lines = (text: string) => text.split('\n').filter((l) => l.trim() !== '');

forEachStore((kind) => {
  describe('circulation import, export and seed', () => {
    let store: TestStore;
    before(async () => {
      store = await openTestStore(kind);
    });
    after(() => store.close());

    it("imports the NDJSON sample, reporting rejected rows by line with the API's error texts", async () => {
      const report = join(dir, `${kind}-ndjson.rejected`);
      const result = circulation(store.databaseUrl, 'import', 'examples/users.ndjson', '--report', report);
      assert.equal(result.status, 1, result.stderr);
      assert.match(result.stdout, /^3 users created, 0 updated, 3 subscriptions added, 2 rows rejected/);
      assert.deepEqual(
        lines(readFileSync(report, 'utf8')).map((l) => JSON.parse(l)),
        [
          { line: 4, errors: ['email: must be a valid email address'] },
          // As in the API, the rules across fields are checked once the fields themselves are valid.
          { line: 5, errors: ["familyName: can't be blank"] },
        ],
      );
      const [{ n }] = (await store.sql('SELECT count(*) AS n FROM subscriptions')) as [{ n: number }];
      assert.equal(Number(n), 3);
    });

    it('changes nothing more when the same file is imported again', async () => {
      const before = await store.sql('SELECT id, email, family_name FROM users ORDER BY id');
      const result = circulation(store.databaseUrl, 'import', 'examples/users.ndjson', '--report', join(dir, 'again'));
      assert.match(result.stdout, /^0 users created, 3 updated, 0 subscriptions added/);
      assert.deepEqual(await store.sql('SELECT id, email, family_name FROM users ORDER BY id'), before);
      const [{ n }] = (await store.sql('SELECT count(*) AS n FROM subscriptions')) as [{ n: number }];
      assert.equal(Number(n), 3);
    });

    it('imports CSV, one subscription a row, and rows of the same email into one user', async () => {
      const result = circulation(
        store.databaseUrl,
        'import',
        'examples/users.csv',
        '--report',
        join(dir, `${kind}-csv.rejected`),
      );
      assert.match(result.stdout, /^2 users created, 1 updated, 2 subscriptions added, 1 rows rejected/);
      const rows = await store.sql(
        "SELECT s.external_identifier AS e FROM subscriptions s JOIN users u ON u.id = s.user_id WHERE u.email = 'barbara@example.com' ORDER BY s.id",
      );
      assert.deepEqual(
        rows.map((r) => r.e),
        ['csv-2001-a', 'csv-2001-b'],
      );
    });

    it('exports what an empty database imports back as the same users and subscriptions', async () => {
      const exported = circulation(store.databaseUrl, 'export', '--subscriptions');
      assert.equal(exported.status, 0, exported.stderr);
      const file = join(dir, `${kind}-export.ndjson`);
      writeFileSync(file, exported.stdout);
      const empty = await openTestStore(kind);
      try {
        const imported = circulation(empty.databaseUrl, 'import', file, '--report', join(dir, 'none'));
        assert.equal(imported.status, 0, imported.stderr + imported.stdout);
        const again = circulation(empty.databaseUrl, 'export', '--subscriptions');
        const strip = (text: string) =>
          lines(text).map((l) => {
            const { id: _id, subscriptions, ...user } = JSON.parse(l);
            return { ...user, subscriptions: subscriptions.map(({ id: _sid, ...s }: { id: string }) => s) };
          });
        assert.deepEqual(strip(again.stdout), strip(exported.stdout));
        assert.equal(lines(exported.stdout).length, 5);
      } finally {
        await empty.close();
      }
    });

    it('exports CSV with a header row, filtered like the API', () => {
      const result = circulation(store.databaseUrl, 'export', '--format', 'csv', '--email', 'example.com');
      const [header, ...rows] = lines(result.stdout);
      assert.match(header ?? '', /^id,email,familyName,/);
      assert.ok(rows.length >= 4);
      assert.ok(rows.every((r) => r.split(',')[1]?.endsWith('@example.com')));
    });

    it('exports a cell a spreadsheet would run as a formula as text, and imports it back as it was', async () => {
      const familyName = '=HYPERLINK("https://evil.example","Open")';
      await store.store.createUser(
        {
          email: 'formula@formula.example',
          passwordHash: null,
          fields: { familyName, telephone: '+1 518 555 0100' },
          newsletters: ['@weekly'],
        },
        AUDIT,
      );
      const exported = circulation(store.databaseUrl, 'export', '--format', 'csv', '--email', 'formula.example');
      assert.equal(exported.status, 0, exported.stderr);
      assert.match(exported.stdout, /,"'=HYPERLINK\(""https:\/\/evil\.example"",""Open""\)",/);
      assert.match(exported.stdout, /,'\+1 518 555 0100,/);
      assert.match(exported.stdout, /,'@weekly\n/);
      const file = join(dir, `${kind}-formula.csv`);
      writeFileSync(file, exported.stdout);
      const empty = await openTestStore(kind);
      try {
        const imported = circulation(empty.databaseUrl, 'import', file, '--report', join(dir, 'formula-rejected'));
        assert.equal(imported.status, 0, imported.stderr + imported.stdout);
        const [row] = await empty.sql('SELECT family_name, telephone FROM users');
        assert.deepEqual({ ...row }, { family_name: familyName, telephone: '+1 518 555 0100' });
      } finally {
        await empty.close();
      }
    });

    it('writes its report as a file of its own, never through a link planted at its path', () => {
      const victim = join(dir, `${kind}-victim.txt`);
      writeFileSync(victim, 'precious\n');
      const report = join(dir, `${kind}-planted.rejected`);
      symlinkSync(victim, report);
      const result = circulation(store.databaseUrl, 'import', 'examples/users.ndjson', '--report', report);
      assert.equal(result.status, 1, result.stderr);
      assert.equal(readFileSync(victim, 'utf8'), 'precious\n');
      assert.ok(lstatSync(report).isFile(), 'the report is still a link');
      assert.equal(lstatSync(report).mode & 0o777, 0o600);
      assert.ok(lines(readFileSync(report, 'utf8')).length > 0);
    });

    it('seeds demo users with three subscriptions each', async () => {
      const empty = await openTestStore(kind);
      try {
        const result = circulation(empty.databaseUrl, 'seed', '--users', '1200');
        assert.equal(result.status, 0, result.stderr);
        const [{ users }] = (await empty.sql('SELECT count(*) AS users FROM users')) as [{ users: number }];
        const [{ subs }] = (await empty.sql('SELECT count(*) AS subs FROM subscriptions')) as [{ subs: number }];
        assert.deepEqual([Number(users), Number(subs)], [1200, 3600]);
      } finally {
        await empty.close();
      }
    });

    it('answers --help for each command, and usage for a wrong call', () => {
      for (const command of ['import', 'export', 'seed', 'keys', 'migrate', 'serve']) {
        const help = circulation(store.databaseUrl, command, '--help');
        assert.equal(help.status, 0);
        assert.match(help.stdout, /Usage:\s+circulation/);
      }
      const wrong = circulation(store.databaseUrl, 'export', '--format', 'xml');
      assert.equal(wrong.status, 2);
      assert.match(wrong.stderr, /--format is ndjson or csv/);
    });
  });
});
