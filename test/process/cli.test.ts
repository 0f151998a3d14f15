/**
 * The circulation command as an operator meets it, run as a process: it names the database it
 * works on first (a PostgreSQL password hidden), only serve, migrate and seed create one, and a
 * mistyped command is answered with the nearest. The rules themselves (the nearest word, how a
 * database is named) are unit tests; these few check that every command keeps them.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, describe, it } from 'node:test';
import { createTestSchema, postgresSkipReason } from '../support/postgres.js';
import { CLI } from '../support/process.js';

const dir = mkdtempSync(join(tmpdir(), 'circulation-cli-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** `circulation ARGS…` on the database `databaseUrl`, run from a folder of its own (not the project's). */
function circulation(databaseUrl: string, ...args: string[]) {
  const result = spawnSync(process.execPath, [resolve(CLI[0] as string), ...args], {
    cwd: dir,
    env: { ...process.env, DATABASE_URL: databaseUrl },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

const firstLine = (text: string) => text.split('\n')[0] ?? '';

describe('the circulation command on SQLite', () => {
  it('refuses, for any command but serve, migrate and seed, a path with no database, making no file', () => {
    const missing = join(dir, 'mistyped', 'circulation.db');
    for (const args of [
      ['keys', 'list'],
      ['import', resolve('examples/users.ndjson')],
      ['export'],
      ['export-reader', '1'],
    ]) {
      const result = circulation(missing, ...args);
      assert.equal(result.status, 1, `${args[0]}: ${result.stderr}`);
      assert.equal(result.stdout, '');
      assert.equal(
        result.stderr,
        `circulation: there is no circulation database at ${missing} (DATABASE_URL), and only serve, migrate and ` +
          'seed create one: check DATABASE_URL and the folder you run this from, or create it with ' +
          '`circulation migrate` (or add --create)\n',
      );
    }
    assert.equal(existsSync(join(dir, 'mistyped')), false);
  });

  it('creates one when given --create, naming it first on stderr, with stdout left to what it writes', () => {
    const database = join(dir, 'created', 'circulation.db');
    const result = circulation(database, 'keys', 'list', '--create');
    assert.equal(result.status, 0, result.stderr);
    assert.equal(firstLine(result.stderr), `circulation: using the SQLite database ${database}`);
    assert.match(result.stdout, /^ID\s+NAME\s+SCOPES/);
    assert.ok(existsSync(database));
  });

  it('answers a mistyped command with the nearest, as a usage error', () => {
    const result = circulation(join(dir, 'never.db'), 'exprot', '--format', 'csv');
    assert.equal(result.status, 2);
    assert.equal(firstLine(result.stderr), 'circulation: there is no command "exprot" (did you mean export?)');
  });
});

describe('the circulation command on PostgreSQL', { skip: postgresSkipReason }, () => {
  it('refuses a schema without circulation tables until migrate makes them, never showing the password', async () => {
    const schema = await createTestSchema();
    try {
      // The test server trusts its clients: a password in the URL is sent and ignored.
      const url = new URL(schema.url);
      if (url.password === '') url.password = 'never-shown';
      const password = url.password;
      const shown = `${url.protocol}//${url.username}:***@${url.host}${url.pathname}`;

      const refused = circulation(
        url.href,
        'staff',
        'create',
        '--email',
        'a@b.example',
        '--name',
        'A',
        '--role',
        'admin',
      );
      assert.equal(refused.status, 1, refused.stderr);
      assert.ok(refused.stderr.startsWith(`circulation: there is no circulation database at ${shown}`), refused.stderr);

      const migrated = circulation(url.href, 'migrate');
      assert.equal(migrated.status, 0, migrated.stderr);
      assert.ok(firstLine(migrated.stderr).startsWith(`circulation: using the PostgreSQL database ${shown}`));

      const listed = circulation(url.href, 'keys', 'list');
      assert.equal(listed.status, 0, listed.stderr);
      for (const output of [refused, migrated, listed]) {
        assert.ok(!`${output.stdout}${output.stderr}`.includes(password), 'the password was shown');
      }
    } finally {
      await schema.drop();
    }
  });
});
