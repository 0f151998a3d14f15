/**
 * `circulation import`, `export` and `seed`, run as commands on both stores: the sample files
 * import with the API's error texts for rejected rows, a second import changes nothing, and an
 * export imports back into an empty database as the same users.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { hash as argon2Hash } from '@node-rs/argon2';
import { hash as bcryptHash } from 'bcrypt';
import { SETTINGS } from '../../src/config.js';
import { parse as parseCsv } from 'csv-parse/sync';
import { PRINT_LIST_COLUMNS } from '../../src/transfer/columns.js';
import { CommandError } from '../../src/cli/errors.js';
import { exportCommand } from '../../src/cli/export.js';
import { runInProcess } from '../support/command.js';
import { CLI, startProcess, type ServiceProcess } from '../support/process.js';
import { signIn } from '../support/readers.js';
import { AUDIT } from '../support/fixtures.js';
import { forEachStore, openTestStore, type TestStore } from '../support/stores.js';
import { PassThrough } from 'node:stream';
import { runOf } from '../../src/domain/delivery.js';
import { parseDate } from '../../src/domain/publication.js';
import { exportRun } from '../../src/transfer/export-deliveries.js';

const dir = mkdtempSync(join(tmpdir(), 'circulation-transfer-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function circulation(databaseUrl: string, ...args: string[]) {
  return circulationIn(process.cwd(), {}, databaseUrl, ...args);
}

function circulationWith(env: Record<string, string>, databaseUrl: string, ...args: string[]) {
  return circulationIn(process.cwd(), env, databaseUrl, ...args);
}

/** The command run from the folder `cwd`, with `env` added to the environment. */
function circulationIn(cwd: string, env: Record<string, string>, databaseUrl: string, ...args: string[]) {
  const result = spawnSync(process.execPath, [resolve(CLI[0] as string), ...args], {
    cwd,
    env: { ...process.env, DATABASE_URL: databaseUrl, ...env },
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
      assert.match(result.stdout, /^3 users created, 0 updated, 0 unchanged, 3 subscriptions added, 2 rows rejected/);
      assert.deepEqual(
        lines(readFileSync(report, 'utf8')).map((l) => JSON.parse(l)),
        [
          { line: 4, email: 'not-an-address', refused: 'row', errors: ['email: must be a valid email address'] },
          // Texas is read as TX: the blank family name is what refuses the row.
          { line: 5, email: 'edsger@example.nl', refused: 'row', errors: ["familyName: can't be blank"] },
        ],
      );
      const [{ n }] = (await store.sql('SELECT count(*) AS n FROM subscriptions')) as [{ n: number }];
      assert.equal(Number(n), 3);
    });

    it('writes nothing, not even an audit entry, when the same file is imported again', async () => {
      const before = await store.snapshot();
      const [{ entries }] = (await store.sql('SELECT count(*) AS entries FROM audit_log')) as [{ entries: number }];
      const result = circulation(store.databaseUrl, 'import', 'examples/users.ndjson', '--report', join(dir, 'again'));
      assert.match(result.stdout, /^0 users created, 0 updated, 3 unchanged, 0 subscriptions added, 2 rows rejected/);
      assert.equal(await store.snapshot(), before);
      const [{ after }] = (await store.sql('SELECT count(*) AS after FROM audit_log')) as [{ after: number }];
      assert.equal(Number(after), Number(entries));
    });

    it('imports CSV, one subscription a row, and rows of the same email into one user', async () => {
      const result = circulation(
        store.databaseUrl,
        'import',
        'examples/users.csv',
        '--report',
        join(dir, `${kind}-csv.rejected`),
      );
      // Barbara's second row adds to the user her first row created: no user existed before.
      assert.match(result.stdout, /^2 users created, 0 updated, 0 unchanged, 2 subscriptions added, 1 row rejected/);
      const rows = await store.sql(
        "SELECT s.external_identifier AS e FROM subscriptions s JOIN users u ON u.id = s.user_id WHERE u.email = 'barbara@example.com' ORDER BY s.id",
      );
      assert.deepEqual(
        rows.map((r) => r.e),
        ['csv-2001-a', 'csv-2001-b'],
      );
    });

    it('reports a rejected CSV row by its line and its columns, and counts people, not rows', async () => {
      const empty = await openTestStore(kind);
      const file = join(dir, `${kind}-three-people.csv`);
      const report = join(dir, `${kind}-three-people.rejected`);
      writeFileSync(
        file,
        [
          'email,familyName,address.addressRegion,address.addressCountry,subscription.dateStarted,subscription.resource',
          'ann@example.com,Ames,,,2025-01-01T00:00:00+00:00,print',
          'ann@example.com,Ames,,,2025-06-01T00:00:00+00:00,online',
          'bob@example.com,Bell,,,2025-01-01T00:00:00+00:00,online',
          'cy@example.com,,Lone Star,US,2025-01-01T00:00:00,online',
        ].join('\n'),
      );
      try {
        const dryRun = circulation(empty.databaseUrl, 'import', file, '--report', report, '--dry-run');
        assert.equal(dryRun.status, 1, dryRun.stderr);
        assert.match(
          dryRun.stdout,
          /^dry run, nothing written: 2 users created, 0 updated, 0 unchanged, 3 subscriptions/,
        );
        assert.equal((await empty.sql('SELECT id FROM users')).length, 0);
        const checked = readFileSync(report, 'utf8');
        const result = circulation(empty.databaseUrl, 'import', file, '--report', report);
        assert.equal(readFileSync(report, 'utf8'), checked, 'the dry run reported what the import did');
        assert.match(result.stdout, /^2 users created, 0 updated, 0 unchanged, 3 subscriptions added, 1 row rejected/);
        assert.deepEqual(JSON.parse(readFileSync(report, 'utf8')), {
          line: 5,
          email: 'cy@example.com',
          refused: 'row',
          errors: [
            "familyName: can't be blank",
            'address.addressRegion: must be at most two characters when addressCountry is US or CA',
            'subscription.dateStarted: must be an ISO-8601 timestamp with a UTC offset, such as 2025-01-31T00:00:00+00:00, in the years 0000 to 9999 in UTC',
          ],
        });
      } finally {
        await empty.close();
      }
    });

    it('takes a blank family name only with --allow-blank-family-name', async () => {
      const empty = await openTestStore(kind);
      const file = join(dir, `${kind}-mononyms.csv`);
      const report = join(dir, `${kind}-mononyms.rejected`);
      writeFileSync(file, 'email,givenName,familyName\r\ncher@example.com,Cher,\r\n');
      try {
        // Without it the row is refused, as the API refuses it: the tests above, on the samples' rows.
        const taken = circulation(empty.databaseUrl, 'import', file, '--allow-blank-family-name', '--report', report);
        assert.equal(taken.status, 0, taken.stderr + taken.stdout);
        assert.match(taken.stdout, /^1 user created, 0 updated, 0 unchanged/);
        const rows = await empty.sql('SELECT given_name, family_name FROM users');
        assert.deepEqual(
          rows.map((r) => ({ ...r })),
          [{ given_name: 'Cher', family_name: '' }],
        );
      } finally {
        await empty.close();
      }
    });

    it('names an NDJSON field by its path in the record', async () => {
      const empty = await openTestStore(kind);
      const file = join(dir, `${kind}-paths.ndjson`);
      const report = join(dir, `${kind}-paths.rejected`);
      writeFileSync(
        file,
        JSON.stringify({
          email: 'dee@example.com',
          familyName: 'Dee',
          newsletters: ['daily', 'has space'],
          subscriptions: [{ dateStarted: '2025-01-01T00:00:00Z' }, { dateStarted: 'soon' }],
        }) + '\n',
      );
      try {
        circulation(empty.databaseUrl, 'import', file, '--report', report);
        const { errors } = JSON.parse(readFileSync(report, 'utf8'));
        assert.deepEqual(
          errors.map((e: string) => e.slice(0, e.indexOf(':'))),
          ['newsletters[1]', 'subscriptions[1].dateStarted'],
        );
      } finally {
        await empty.close();
      }
    });

    // Where the report goes, and how it is written, is the command's own work on the file system:
    // the same on every store, which the rows it holds (the tests above) are not. Asked on SQLite.
    if (kind === 'SQLite')
      it('writes no report when nothing is rejected, and writes one in the current folder otherwise', async () => {
        const empty = await openTestStore(kind);
        const here = join(dir, `${kind}-cwd`);
        mkdirSync(here);
        const clean = join(dir, `${kind}-clean.ndjson`);
        writeFileSync(clean, `${JSON.stringify({ email: 'eve@example.com', familyName: 'Eve' })}\n`);
        try {
          assert.equal(circulationIn(here, {}, empty.databaseUrl, 'import', clean).status, 0);
          assert.equal(existsSync(`${clean}.rejected.ndjson`), false, 'a report beside the input');
          assert.equal(existsSync(join(here, `${kind}-clean.ndjson.rejected.ndjson`)), false, 'an empty report');
          const result = circulationIn(here, {}, empty.databaseUrl, 'import', resolve('examples/users.ndjson'));
          assert.equal(result.status, 1);
          assert.match(result.stdout, /see users\.ndjson\.rejected\.ndjson/);
          assert.equal(lines(readFileSync(join(here, 'users.ndjson.rejected.ndjson'), 'utf8')).length, 2);
          assert.equal(existsSync('examples/users.ndjson.rejected.ndjson'), false, 'a report beside the sample');
        } finally {
          await empty.close();
        }
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
      await store.store.users.create(
        {
          email: 'formula@formula.example',
          passwordHash: null,
          fields: { familyName, telephone: '+1 518 555 0100' },
          // A catalogue id may begin with a hyphen, which a spreadsheet would take for a formula too.
          newsletters: ['-weekly'],
        },
        AUDIT,
      );
      const exported = circulation(store.databaseUrl, 'export', '--format', 'csv', '--email', 'formula.example');
      assert.equal(exported.status, 0, exported.stderr);
      assert.match(exported.stdout, /,"'=HYPERLINK\(""https:\/\/evil\.example"",""Open""\)",/);
      assert.match(exported.stdout, /,'\+1 518 555 0100,/);
      assert.match(exported.stdout, /,'-weekly,/);
      const file = join(dir, `${kind}-formula.csv`);
      writeFileSync(file, exported.stdout);
      const empty = await openTestStore(kind);
      try {
        const imported = circulation(empty.databaseUrl, 'import', file, '--report', join(dir, 'formula-rejected'));
        assert.equal(imported.status, 0, imported.stderr + imported.stdout);
        const [row] = await empty.sql('SELECT family_name, telephone FROM users');
        assert.deepEqual({ ...row }, { family_name: familyName, telephone: '+1 518 555 0100' });
        const memberships = await empty.sql('SELECT newsletter_id FROM user_newsletters');
        assert.deepEqual(
          memberships.map((m) => m.newsletter_id),
          ['-weekly'],
        );
      } finally {
        await empty.close();
      }
    });

    if (kind === 'SQLite')
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

    it('rejects, with STRICT_REFERENCES=true, an imported row naming a product the catalogue lacks', async () => {
      const empty = await openTestStore(kind);
      try {
        const file = join(dir, `${kind}-strict.ndjson`);
        const subscription = { dateStarted: '2025-01-01T00:00:00Z', product: 'nowhere' };
        writeFileSync(
          file,
          [
            { email: `strict-a@example.com`, familyName: 'A', subscriptions: [subscription] },
            { email: `strict-b@example.com`, familyName: 'B', newsletters: ['unheard-of'] },
            { email: `strict-c@example.com`, familyName: 'C' },
          ]
            .map((record) => JSON.stringify(record))
            .join('\n'),
        );
        const report = join(dir, `${kind}-strict.rejected`);
        const result = circulationWith(
          { STRICT_REFERENCES: 'true' },
          empty.databaseUrl,
          'import',
          file,
          '--report',
          report,
        );
        assert.equal(result.status, 1, result.stderr);
        // The reader whose subscription names it is imported without that subscription.
        assert.match(
          result.stdout,
          /^2 users created, 0 updated, 0 unchanged, 0 subscriptions added, 1 row rejected, 1 subscription rejected/,
        );
        assert.deepEqual(
          lines(readFileSync(report, 'utf8')).map((l) => JSON.parse(l)),
          [
            {
              line: 1,
              email: 'strict-a@example.com',
              refused: 'subscriptions',
              errors: ['subscriptions[0].product: there is no product nowhere'],
            },
            {
              line: 2,
              email: 'strict-b@example.com',
              refused: 'row',
              errors: ['newsletters[0]: there is no newsletter unheard-of'],
            },
          ],
        );
        const registering = circulation(empty.databaseUrl, 'import', file, '--report', report);
        assert.match(
          registering.stdout,
          /^1 user created, 1 updated, 1 unchanged, 1 subscription added, 0 rows rejected/,
        );
        assert.deepEqual(await empty.sql('SELECT id, name FROM products'), [{ id: 'nowhere', name: 'nowhere' }]);
      } finally {
        await empty.close();
      }
    });

    describe('fulfilment lists', () => {
      let seeded: TestStore;
      const USERS = 300;
      const numbers = (keep: (n: number) => boolean) =>
        Array.from({ length: USERS }, (_, i) => i + 1)
          .filter(keep)
          .map((n) => `C-${n}`);
      // The weekly newsletter's members with an active subscription of print-weekend (see transfer/seed.ts).
      const weeklyWithPrintWeekend = ['--newsletter', 'weekly', '--status', 'active', '--product', 'print-weekend'];
      const weeklyWithPrintWeekendReaders = numbers((n) => n % 3 === 1 && n % 4 === 0 && n % 5 !== 0);
      before(async () => {
        seeded = await openTestStore(kind);
        assert.equal(circulation(seeded.databaseUrl, 'seed', '--users', String(USERS)).status, 0);
      });
      after(() => seeded.close());

      /**
       * Asserts that `export ARGS --product no-such-product` is refused for the product the catalogue
       * lacks, exporting nothing. Run in this process: the last test here runs such a refusal as a
       * command, for its exit code and its line on stderr.
       */
      async function refusedUnknownProduct(args: readonly string[]): Promise<void> {
        const { thrown, stdout } = await runInProcess(exportCommand, seeded.databaseUrl, [
          ...args,
          '--product',
          'no-such-product',
        ]);
        assert.ok(thrown instanceof CommandError, String(thrown));
        assert.match(thrown.message, /^there is no product "no-such-product" in the catalogue/);
        assert.equal(stdout, '');
      }

      it('seeds demo users with three subscriptions each', async () => {
        const [{ users }] = (await seeded.sql('SELECT count(*) AS users FROM users')) as [{ users: number }];
        const [{ subs }] = (await seeded.sql('SELECT count(*) AS subs FROM subscriptions')) as [{ subs: number }];
        assert.deepEqual([Number(users), Number(subs)], [USERS, 3 * USERS]);
      });

      it("exports the print list for a date as that date's run, in the columns a mail house needs: no contact details", async () => {
        // Today's date: the seed's subscriptions begin and end days away from now (see transfer/seed.ts).
        const today = new Date().toISOString().slice(0, 10);
        const result = circulation(
          seeded.databaseUrl,
          'export',
          '--format',
          'csv',
          '--resource',
          'print',
          '--on',
          today,
        );
        assert.equal(result.status, 0, result.stderr);
        const rows = parseCsv(result.stdout, { columns: true }) as Record<string, string>[];
        assert.deepEqual(Object.keys(rows[0] ?? {}), PRINT_LIST_COLUMNS);
        // The run of the date, as `export deliveries` reads it (print-weekend's readers on a weekend only).
        const out = new PassThrough();
        const written: Buffer[] = [];
        out.on('data', (chunk: Buffer) => written.push(chunk));
        await exportRun(seeded.store, out, { date: today, run: runOf(parseDate(today) as number, 'UTC') });
        const run = parseCsv(Buffer.concat(written).toString('utf8'), { columns: true }) as Record<string, string>[];
        const label = (r: Record<string, string>) => `${r.name}|${r['address.streetAddress']}|${r.product}|${r.copies}`;
        assert.ok(run.length > 50);
        assert.deepEqual(rows.map(label), run.map(label));
        assert.ok(rows.every((r) => r.name !== '' && r['address.addressLocality'] === 'Springfield'));
        assert.doesNotMatch(result.stdout, /@|\+1 217|C-\d/);
        // What the arguments alone refuse, test/cli/usage.test.ts tests; a product is looked up in the store.
        await refusedUnknownProduct(['--format', 'csv', '--resource', 'print', '--on', today]);
      });

      it('exports the print run of a date as the run reads it, a row a delivery, and refuses a date that is none', async () => {
        const saturday = new Date(Date.now() + ((6 - new Date().getUTCDay() + 7) % 7) * 86_400_000)
          .toISOString()
          .slice(0, 10);
        const result = circulation(seeded.databaseUrl, 'export', 'deliveries', '--date', saturday);
        assert.equal(result.status, 0, result.stderr);
        const out = new PassThrough();
        const written: Buffer[] = [];
        out.on('data', (chunk: Buffer) => written.push(chunk));
        const date = parseDate(saturday) as number;
        await exportRun(seeded.store, out, { date: saturday, run: runOf(date, 'UTC') });
        assert.equal(result.stdout, Buffer.concat(written).toString('utf8'));
        const rows = parseCsv(result.stdout, { columns: true }) as Record<string, string>[];
        // Every print reader on a Saturday, print-weekend's included (see transfer/seed.ts).
        assert.ok(rows.length > 50 && rows.some((r) => r.product === 'print-weekend'), result.stdout.slice(0, 300));
        assert.doesNotMatch(result.stdout, /@|\+1 217|C-\d/);
        // A date missing or none the calendar has: test/cli/usage.test.ts; a product is looked up in the store.
        await refusedUnknownProduct(['deliveries', '--date', saturday]);
      });

      it("exports a newsletter's members, and those of them with an active subscription of a product", () => {
        const members = circulation(seeded.databaseUrl, 'export', '--newsletter', 'weekly');
        assert.deepEqual(
          lines(members.stdout).map((l) => JSON.parse(l).circulationNumber),
          numbers((n) => n % 3 === 1),
        );
        const both = circulation(seeded.databaseUrl, 'export', ...weeklyWithPrintWeekend);
        assert.deepEqual(
          lines(both.stdout).map((l) => JSON.parse(l).circulationNumber),
          weeklyWithPrintWeekendReaders,
        );
      });

      it('exports every one of them where pages read so few entries that some stop short with no one (PAGE_READ_LIMIT=2)', () => {
        const result = circulationWith(
          { PAGE_READ_LIMIT: '2' },
          seeded.databaseUrl,
          'export',
          ...weeklyWithPrintWeekend,
        );
        assert.equal(result.status, 0, result.stderr);
        assert.deepEqual(
          lines(result.stdout).map((l) => JSON.parse(l).circulationNumber),
          weeklyWithPrintWeekendReaders,
        );
      });

      it('refuses a newsletter or a product the catalogue lacks, exporting nothing, where it exported an empty list', () => {
        for (const [args, message] of [
          [['--newsletter', 'weekley'], /^circulation: there is no newsletter "weekley" in the catalogue/m],
          [
            ['--status', 'active', '--product', 'print-wekend'],
            /^circulation: there is no product "print-wekend" in the catalogue/m,
          ],
        ] as const) {
          const result = circulation(seeded.databaseUrl, 'export', ...args);
          assert.equal(result.status, 1, `${args.join(' ')}: ${result.stderr}`);
          assert.match(result.stderr, message);
          assert.equal(result.stdout, '');
        }
      });
    });

    // Help and usage are read before the store is: asked once, on SQLite. Each command's help and
    // each refusal of its arguments are tested in this process, in test/cli/usage.test.ts.
    if (kind === 'SQLite') {
      it('answers --help with the top-level help naming every setting, and a wrong call with usage, exit code 2 and nothing on stdout', () => {
        const help = circulation(store.databaseUrl, '--help');
        assert.equal(help.status, 0);
        for (const name of Object.values(SETTINGS).flat()) assert.match(help.stdout, new RegExp(`\\b${name}\\b`));
        const wrong = circulation(store.databaseUrl, 'export', '--format', 'xml');
        assert.equal(wrong.status, 2);
        assert.match(wrong.stderr, /^circulation: --format is ndjson or csv\n\nUsage: circulation export/m);
        assert.equal(wrong.stdout, '');
      });
    }
  });

  describe('circulation import of readers brought with their password hashes', () => {
    let store: TestStore;
    let service: ServiceProcess | undefined;
    before(async () => {
      store = await openTestStore(kind);
    });
    after(async () => {
      await service?.stop();
      await store.close();
    });

    it('keeps bcrypt and argon2 hashes as they are, rejecting a malformed one by line, and the readers sign in', async () => {
      const bcrypt = await bcryptHash('bcrypt from the old site', 4);
      const argon2 = await argon2Hash('argon2 from the old site', { algorithm: 1, memoryCost: 4096, timeCost: 3 });
      const ndjson = join(dir, `${kind}-hashes.ndjson`);
      writeFileSync(
        ndjson,
        [
          { email: 'bcrypt@old.example', familyName: 'Bcrypt', passwordHash: bcrypt },
          { email: 'argon2@old.example', familyName: 'Argon', passwordHash: argon2 },
          { email: 'md5@old.example', familyName: 'Md5', passwordHash: '5f4dcc3b5aa765d61d8327deb882cf99' },
          { email: 'both@old.example', familyName: 'Both', password: 'correct horse battery', passwordHash: bcrypt },
        ]
          .map((record) => JSON.stringify(record))
          .join('\n'),
      );
      const report = join(dir, `${kind}-hashes.rejected`);
      const result = circulation(store.databaseUrl, 'import', ndjson, '--report', report);
      assert.match(result.stdout, /^2 users created, 0 updated, 0 unchanged, 0 subscriptions added, 2 rows rejected/);
      assert.deepEqual(
        lines(readFileSync(report, 'utf8')).map((l) => JSON.parse(l).errors),
        [
          ['passwordHash: must be a bcrypt ($2a$, $2b$, $2y$) or argon2 (PHC string) hash'],
          ['passwordHash: cannot be sent with password; send one of them'],
        ],
      );
      const stored = await store.sql('SELECT email, password_hash FROM users ORDER BY id');
      assert.deepEqual(
        stored.map((r) => [r.email, r.password_hash]),
        [
          ['bcrypt@old.example', bcrypt],
          ['argon2@old.example', argon2],
        ],
      );

      const csv = join(dir, `${kind}-hashes.csv`);
      writeFileSync(csv, `email,familyName,passwordHash\ncsv@old.example,Csv,${bcrypt}\n`);
      assert.match(circulation(store.databaseUrl, 'import', csv, '--report', report).stdout, /^1 user created/);

      service = await startProcess({ DATABASE_URL: store.databaseUrl });
      for (const [email, password] of [
        ['bcrypt@old.example', 'bcrypt from the old site'],
        ['argon2@old.example', 'argon2 from the old site'],
        ['csv@old.example', 'bcrypt from the old site'],
      ]) {
        assert.equal((await signIn(service.client, email, password)).status, 201, email);
      }
      const rehashed = await store.sql('SELECT password_hash FROM users');
      assert.ok(rehashed.every((r) => String(r.password_hash).startsWith('$argon2id$v=19$m=19456,t=2,p=1$')));
    });

    it('exports lastSignInAt, and imports an export carrying it back without a rejected row', async () => {
      assert.ok(service, 'the previous test signed readers in');
      const exported = circulation(store.databaseUrl, 'export');
      const records = lines(exported.stdout).map((l) => JSON.parse(l));
      assert.ok(
        records.every((r) => /^\d{4}-\d{2}-\d{2}T/.test(r.lastSignInAt)),
        exported.stdout,
      );
      const csv = circulation(store.databaseUrl, 'export', '--format', 'csv');
      assert.match(lines(csv.stdout)[0] ?? '', /,lastSignInAt$/);
      const empty = await openTestStore(kind);
      try {
        for (const [format, text] of [
          ['ndjson', exported.stdout],
          ['csv', csv.stdout],
        ] as const) {
          const file = join(dir, `${kind}-signed-in.${format}`);
          writeFileSync(file, text);
          const imported = circulation(empty.databaseUrl, 'import', file, '--report', join(dir, 'none'));
          assert.equal(imported.status, 0, imported.stderr + imported.stdout);
        }
      } finally {
        await empty.close();
      }
    });
  });
});
