/**
 * Backups of the SQLite database, by real processes: `circulation backup` under a stream of
 * writes keeps every write answered before it began; a backup killed halfway leaves the one
 * before it untouched; `restore` waits for the service to stop and refuses what is not a sound
 * circulation database; PostgreSQL is sent to its own tools; BACKUP_DIR keeps BACKUP_KEEP files.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
  openSync,
  writeSync,
  closeSync,
  copyFileSync,
  mkdirSync,
  symlinkSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { userDocument } from '../support/fixtures.js';
import { CLI, runCommand, startProcess, type ServiceProcess } from '../support/process.js';

const dir = mkdtempSync(join(tmpdir(), 'circulation-backup-'));
after(() => rmSync(dir, { recursive: true, force: true }));
let folders = 0;
/** A folder of its own for one test. */
function folder(): string {
  const path = join(dir, String(++folders));
  rmSync(path, { recursive: true, force: true });
  return mkdtempSync(`${path}-`);
}

/** `circulation ARGS…` as a process of its own, not waited for: the test's own requests go on meanwhile. */
function command(databaseUrl: string, ...args: string[]): { child: ChildProcess; ended: Promise<Ended> } {
  const child = spawn(process.execPath, [...CLI, ...args], {
    env: { ...process.env, DATABASE_URL: databaseUrl },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const ended = once(child, 'exit').then(([status, signal]) => ({
    status: status as number | null,
    signal: signal as NodeJS.Signals | null,
    stdout,
    stderr,
  }));
  return { child, ended };
}

interface Ended {
  status: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

function integrityOf(path: string): string {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    return db.pragma('integrity_check', { simple: true }) as string;
  } finally {
    db.close();
  }
}

async function createUser(service: ServiceProcess): Promise<string> {
  const created = await service.client.post('/users', userDocument());
  assert.equal(created.status, 201);
  return created.body.data.id as string;
}

/** A database with this release's schema, closed, for the tests that only read it or copy it. */
let migrated: string | undefined;
function migratedDatabase(): string {
  if (migrated === undefined) {
    const path = join(folder(), 'migrated.db');
    assert.equal(runCommand(path, 'migrate').status, 0);
    migrated = path;
  }
  return migrated;
}

const drafts = (folder: string) =>
  readdirSync(folder).filter((name) => name.endsWith('.tmp') || name.includes('.tmp-'));

describe('circulation backup', () => {
  it('holds every write answered before it began, under a stream of writes, and opens clean', async () => {
    const here = folder();
    const database = join(here, 'live.db');
    const destination = join(here, 'backup.db');
    const service = await startProcess({ DATABASE_URL: database });
    const acknowledged: string[] = [];
    let writing = true;
    const writers = Array.from({ length: 4 }, async () => {
      while (writing) acknowledged.push(await createUser(service));
    });
    let backedUp: Ended;
    let before: string[];
    try {
      while (acknowledged.length < 40) await new Promise((resolve) => setTimeout(resolve, 10));
      before = [...acknowledged];
      backedUp = await command(database, 'backup', destination).ended;
      const during = acknowledged.length;
      // The writes went on through the backup.
      while (acknowledged.length < during + 10) await new Promise((resolve) => setTimeout(resolve, 10));
    } finally {
      writing = false;
      await Promise.all(writers);
      await service.stop();
    }
    assert.equal(backedUp.status, 0, backedUp.stderr);
    assert.match(
      backedUp.stdout,
      /^backed up the database to .*backup\.db \([\d.]+ (KiB|MiB), schema version \d+\) in \d+\.\d s\n$/,
    );
    assert.equal(statSync(destination).mode & 0o777, 0o600);
    assert.equal(integrityOf(destination), 'ok');
    assert.deepEqual(drafts(here), []);

    const restored = await startProcess({ DATABASE_URL: destination });
    try {
      for (const id of before) assert.equal((await restored.client.get(`/users/${id}`)).status, 200, `user ${id}`);
    } finally {
      await restored.stop();
    }
  });

  it('killed halfway, leaves the backup before it as it was, and the next one removes its draft', async () => {
    const here = folder();
    const database = join(here, 'live.db');
    assert.equal(runCommand(database, 'migrate').status, 0);
    // Tens of megabytes of audit entries: enough that the kill lands in the middle of the copy.
    const db = new Database(database);
    const pad = db.prepare(`
      WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
      INSERT INTO audit_log (actor, action, resource_type, resource_id, attributes)
      SELECT 'test', 'create', 'users', i, json_array(hex(randomblob(100))) FROM n`);
    pad.run(100_000);
    const destination = join(here, 'backup.db');
    const first = runCommand(database, 'backup', destination);
    assert.equal(first.status, 0, first.stderr);
    const previous = readFileSync(destination);
    assert.ok(previous.length > 20 * 1024 * 1024, `the database is only ${previous.length} bytes`);
    pad.run(1000);
    db.close();

    const killed = command(database, 'backup', destination);
    for (;;) {
      const draft = drafts(here)[0];
      if (draft !== undefined && (statSync(join(here, draft), { throwIfNoEntry: false })?.size ?? 0) > 0) break;
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    killed.child.kill('SIGKILL');
    const ended = await killed.ended;
    assert.equal(ended.signal, 'SIGKILL', `the backup ended before the kill: ${ended.stdout}`);
    assert.ok(previous.equals(readFileSync(destination)), 'the previous backup changed');
    assert.notDeepEqual(drafts(here), [], 'a draft should have been left to clean up');

    const next = runCommand(database, 'backup', destination);
    assert.equal(next.status, 0, next.stderr);
    assert.deepEqual(drafts(here), []);
    assert.equal(integrityOf(destination), 'ok');
    assert.ok(!previous.equals(readFileSync(destination)), 'the next backup did not replace the previous one');
  });

  it('answers --help, and says what stands in the way: no such folder, a folder, the database itself', async () => {
    const here = folder();
    const database = migratedDatabase();
    const cases = [
      [join(here, 'missing', 'backup.db'), /the folder .*missing does not exist/],
      [here, /is a folder: give the path of a file in it/],
      [database, /is the database itself/],
    ] as const;
    const [backupHelp, restoreHelp, ...results] = await Promise.all([
      command(database, 'backup', '--help').ended,
      command(database, 'restore', '--help').ended,
      ...cases.map(([destination]) => command(database, 'backup', destination).ended),
    ]);
    for (const [index, [, reason]] of cases.entries()) {
      assert.equal(results[index]!.status, 1, results[index]!.stderr);
      assert.match(results[index]!.stderr, reason);
    }
    assert.match(backupHelp!.stdout, /^Usage: circulation backup DEST\n/);
    assert.match(restoreHelp!.stdout, /^Usage: circulation restore SRC\n/);
  });

  it('refuses the database and its -wal, -shm and -journal reached through a symlinked folder, either way', async () => {
    const database = migratedDatabase();
    const linked = join(folder(), 'linked');
    symlinkSync(dirname(database), linked);
    const throughLink = join(linked, basename(database));
    const cases = [
      [database, join(linked, `${basename(database)}-wal`), /is the database's -wal file/],
      [database, join(linked, `${basename(database)}-shm`), /is the database's -shm file/],
      [database, join(linked, `${basename(database)}-journal`), /is the database's -journal file/],
      [database, join(linked, '..', 'linked', basename(database)), /is the database itself/],
      [throughLink, `${database}-wal`, /is the database's -wal file/],
    ] as const;
    const results = await Promise.all(cases.map(([url, destination]) => command(url, 'backup', destination).ended));
    for (const [index, [, destination, reason]] of cases.entries()) {
      assert.equal(results[index]!.status, 1, `${destination}: ${results[index]!.stderr}`);
      assert.match(results[index]!.stderr, reason);
    }
    for (const suffix of ['-wal', '-shm', '-journal']) assert.ok(!existsSync(`${database}${suffix}`), suffix);
    assert.equal(integrityOf(database), 'ok');
  });

  it('on PostgreSQL, refuses and names what to use instead, as restore and BACKUP_DIR do', async () => {
    const url = 'postgres://postgres@127.0.0.1:5432/test';
    const backup = runCommand(url, 'backup', join(folder(), 'backup.db'));
    assert.equal(backup.status, 1);
    assert.match(backup.stderr, /pg_dump -Fc/);
    assert.match(backup.stderr, /base backups with WAL archiving/);
    const restore = runCommand(url, 'restore', join(folder(), 'backup.db'));
    assert.equal(restore.status, 1);
    assert.match(restore.stderr, /pg_restore/);
    await assert.rejects(startProcess({ DATABASE_URL: url, BACKUP_DIR: folder() }), /invalid setting BACKUP_DIR/);
  });
});

describe('circulation restore', () => {
  it('refuses while the service has the database open, and once it has stopped puts the backup in place', async () => {
    const here = folder();
    const database = join(here, 'live.db');
    const backup = join(here, 'backup.db');
    let service = await startProcess({ DATABASE_URL: database });
    let kept: string;
    let later: string;
    try {
      kept = await createUser(service);
      assert.equal(runCommand(database, 'backup', backup).status, 0);
      later = await createUser(service);
      const refused = runCommand(database, 'restore', backup);
      assert.equal(refused.status, 1);
      assert.match(refused.stderr, /another process has the database at .* open .* stop every process/);
      assert.equal((await service.client.get(`/users/${later}`)).status, 200);
    } finally {
      await service.stop();
    }
    const restored = runCommand(database, 'restore', backup);
    assert.equal(restored.status, 0, restored.stderr);
    assert.match(restored.stdout, /^restored .*backup\.db to .*live\.db \(/);
    assert.equal(statSync(database).mode & 0o777, 0o600);
    assert.ok(!existsSync(`${database}-wal`) && !existsSync(`${database}-shm`));
    assert.deepEqual(drafts(here), []);

    service = await startProcess({ DATABASE_URL: database });
    try {
      assert.equal((await service.client.get(`/users/${kept}`)).status, 200);
      assert.equal((await service.client.get(`/users/${later}`)).status, 404);
    } finally {
      await service.stop();
    }
  });

  it('refuses a file that is not a circulation database, or fails the integrity check, and changes nothing', async () => {
    const here = folder();
    const database = join(here, 'live.db');
    copyFileSync(migratedDatabase(), database);
    const before = readFileSync(database);

    const text = join(here, 'notes.txt');
    writeFileSync(text, 'not a database at all, but long enough to be read as one '.repeat(100));
    const other = join(here, 'other.db');
    const db = new Database(other);
    db.exec('CREATE TABLE t (x); INSERT INTO t VALUES (1)');
    db.close();
    const broken = join(here, 'broken.db');
    copyFileSync(database, broken);
    const pages = statSync(broken).size / 4096;
    const fd = openSync(broken, 'r+');
    // Every page but the first (the schema) overwritten with what no b-tree page can be.
    for (let page = 1; page < pages; page++) writeSync(fd, Buffer.alloc(4096, 0x5a), 0, 4096, page * 4096);
    closeSync(fd);

    const cases = [
      [text, /cannot be read as a SQLite database/],
      [other, /not a circulation database/],
      [broken, /cannot be restored: it (cannot be read|fails SQLite's integrity check)/],
      [join(here, 'missing.db'), /there is no file at/],
    ] as const;
    const results = await Promise.all(cases.map(([source]) => command(database, 'restore', source).ended));
    for (const [index, [source, reason]] of cases.entries()) {
      assert.equal(results[index]!.status, 1, `${source}: ${results[index]!.stderr}`);
      assert.match(results[index]!.stderr, reason);
      assert.match(results[index]!.stderr, /nothing was changed|there is no file/);
    }
    assert.ok(before.equals(readFileSync(database)), 'the database changed');
    assert.deepEqual(drafts(here), []);
  });
});

describe('scheduled backups (BACKUP_DIR)', () => {
  it('back up at start when the newest is old, and keep BACKUP_KEEP of them, leaving other files alone', async () => {
    const here = folder();
    const database = join(here, 'live.db');
    assert.equal(runCommand(database, 'seed', '--users', '3').status, 0);
    const backups = join(here, 'backups');
    // Made by the service when missing; here it already holds four old backups and a file of the operator's.
    mkdirSync(backups);
    for (const day of ['01', '02', '03', '04']) writeFileSync(join(backups, `circulation-202001${day}T000000Z.db`), '');
    writeFileSync(join(backups, 'notes.txt'), 'kept');
    const service = await startProcess({ DATABASE_URL: database, BACKUP_DIR: backups, BACKUP_KEEP: '3' });
    try {
      await service.until(/backed up the database/);
    } finally {
      await service.stop();
    }
    const names = readdirSync(backups).sort();
    assert.equal(names.length, 4, names.join(', '));
    assert.deepEqual(names.slice(0, 2), ['circulation-20200103T000000Z.db', 'circulation-20200104T000000Z.db']);
    assert.match(names[2] as string, /^circulation-\d{8}T\d{6}Z\.db$/);
    assert.equal(names[3], 'notes.txt');
    const newest = join(backups, names[2] as string);
    assert.equal(statSync(newest).mode & 0o777, 0o600);
    assert.equal(integrityOf(newest), 'ok');
    const db = new Database(newest, { readonly: true });
    try {
      assert.deepEqual(db.prepare('SELECT count(*) AS n FROM users').get(), { n: 3 });
    } finally {
      db.close();
    }
  });
});
