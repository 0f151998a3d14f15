/**
 * `circulation export`, `import` and `keys` refusing their arguments, and every command's --help,
 * tested in this process: what the arguments alone decide, before the store is read, is the same
 * on every store. That the command line turns a UsageError into exit code 2, its message and the
 * usage on stderr, and nothing on stdout, test/process/transfer.test.ts shows by running it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { UsageError } from '../../src/cli/errors.js';
import type { Command } from '../../src/cli/command.js';
import { exportCommand } from '../../src/cli/export.js';
import { importCommand } from '../../src/cli/import.js';
import { keysCommand } from '../../src/cli/keys.js';
import { runCli } from '../../src/cli/index.js';
import { runInProcess, written } from '../support/command.js';
import { openTestStore, type TestStore } from '../support/stores.js';

describe('circulation export, import and keys refusing their arguments', () => {
  // The command opens its database before it reads its arguments: one is there for it.
  let store: TestStore;
  before(async () => {
    store = await openTestStore('SQLite');
  });
  after(() => store.close());

  /** Asserts that the command (export unless told) refuses ARGS as a usage error saying `message`, writing nothing to stdout. */
  async function refusedAsUsage(
    args: readonly string[],
    message: RegExp,
    command: Command = exportCommand,
  ): Promise<string> {
    const { thrown: refusal, stdout } = await runInProcess(command, store.databaseUrl, args);
    assert.ok(refusal instanceof UsageError, `${args.join(' ')}: ${String(refusal)}`);
    assert.match(refusal.message, message, args.join(' '));
    assert.equal(stdout, '', args.join(' '));
    return refusal.message;
  }

  it('refuses a status other than active, and a resource or product without it', async () => {
    for (const [args, message] of [
      [['--status', 'ended'], /--status can only be active/],
      [['--resource', 'print'], /--resource needs status active/],
      [['--status', 'active', '--resource', 'radio'], /--resource must be one of: online, print, print-online/],
    ] as const) {
      await refusedAsUsage(args, message);
    }
  });

  it('refuses a filter value the API refuses, a filter given twice, and a column there is none of', async () => {
    for (const [args, message] of [
      [['--newsletter', ''], /--newsletter is too short \(minimum is 1 characters\)/],
      [['--newsletter', 'x'.repeat(65)], /--newsletter is too long \(maximum is 64 characters\)/],
      [['--status', 'active', '--product', ''], /--product is too short/],
      [['--email', ''], /--email is too short/],
      [['--circulation-number', 'x'.repeat(51)], /--circulation-number is too long \(maximum is 50 characters\)/],
      [['--newsletter', 'weekly', '--newsletter', 'daily'], /--newsletter is given more than once/],
      [
        ['--format', 'csv', '--columns', 'name,adress'],
        /--columns names no column "adress" \(did you mean address\?\)/,
      ],
    ] as const) {
      await refusedAsUsage(args, message);
    }
  });

  it('refuses, for the print run of a date, a date that is no publication date and a filter or column it has no answer for', async () => {
    const print = ['--format', 'csv', '--resource', 'print'];
    for (const [args, message] of [
      [['--on', '2026-12-05T00:00:00+01:00'], /print run of a publication date/],
      [['--on', '2026-12-05', '--email', 'example.com'], /--email does not narrow the print run/],
      [
        ['--on', '2026-12-05', '--columns', 'name,email'],
        /--columns names email, which the print run of a date does not have/,
      ],
    ] as const) {
      await refusedAsUsage([...print, ...args], message);
    }
  });

  it('refuses export deliveries without a date, or with one the calendar lacks', async () => {
    for (const [args, message] of [
      [[], /needs --date/],
      [['--date', '2026-02-30'], /--date is a calendar date/],
    ] as const) {
      await refusedAsUsage(['deliveries', ...args], message);
    }
  });

  it('refuses an import whose --date-format is none it reads, naming those it does', async () => {
    await refusedAsUsage(
      ['examples/users.csv', '--date-format', 'YYYY/DD/MM'],
      /--date-format is one of MM\/DD\/YYYY, DD\/MM\/YYYY, DD\.MM\.YYYY/,
      importCommand,
    );
  });

  it('refuses a key created without a scope', async () => {
    await refusedAsUsage(['create', '--name', 'x'], /needs --scope/, keysCommand);
  });

  it('refuses an unknown scope by its name, saying which scopes there are', async () => {
    const message = await refusedAsUsage(
      ['create', '--name', 'x', '--scope', 'read', '--scope', 'delete'],
      /unknown scope "delete": the scopes are read, write, admin/,
      keysCommand,
    );
    assert.doesNotMatch(message, /needs --scope/);
  });
});

describe('circulation COMMAND --help', () => {
  it('answers the usage of each command', async () => {
    for (const command of ['import', 'export', 'seed', 'keys', 'migrate', 'serve']) {
      const { stdout } = await written(() => runCli([command, '--help']));
      assert.match(stdout, /^Usage:\s+circulation/, command);
    }
  });

  it('names --allow-blank-family-name in the usage of import', async () => {
    const { stdout } = await written(() => runCli(['import', '--help']));
    assert.match(stdout, /--allow-blank-family-name/);
  });
});
