import assert from 'node:assert/strict';
import { availableParallelism } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { readFileSync } from 'node:fs';
import { ConfigError, DEFAULT_DATABASE_PATH, loadConfig, SETTINGS } from '../src/config.js';
import { parseNetworks } from '../src/domain/webhooks.js';

/** Asserts that loading `env` fails with a ConfigError naming `setting`. */
function assertRefused(env: Record<string, string>, setting: string): void {
  assert.throws(
    () => loadConfig(env),
    (error: unknown) => {
      assert.ok(error instanceof ConfigError, `expected a ConfigError, got ${String(error)}`);
      assert.match(error.message, new RegExp(`\\b${setting}\\b`));
      return true;
    },
  );
}

describe('loadConfig defaults', () => {
  it('gives every default when nothing is set', () => {
    assert.deepEqual(loadConfig({}), {
      port: 3000,
      host: '127.0.0.1',
      database: { kind: 'sqlite', path: resolve(DEFAULT_DATABASE_PATH), synchronous: 'NORMAL', busyTimeoutMs: 1000 },
      strictReferences: false,
      pageReadLimit: 10_000,
      print: {
        calendar: { zone: 'UTC', cutoff: { days: -1, second: 19 * 3600 } },
        holdAllowanceDays: 35,
        repeatComplaintDays: 14,
        complaintMaxAgeDays: 0,
      },
      publicUrl: undefined,
      trustProxy: false,
      bodyLimitBytes: 65_536,
      logLevel: 'info',
      auth: true,
      adminKey: undefined,
      firstAdminKeyFile: join(dirname(resolve(DEFAULT_DATABASE_PATH)), 'first-admin.key'),
      rateLimit: { perSecond: 100, burst: 200 },
      serviceSecretKey: undefined,
      shutdownDrainMs: 5000,
      shutdownMinUnreadyMs: 3000,
      shutdownGraceMs: 10_000,
      lapseIntervalSeconds: 0,
      retention: { intervalSeconds: 600, idempotencyHours: 24, deliveryDays: 30, auditDays: 0 },
      webhooks: {
        secretKey: undefined,
        deliver: true,
        timeoutMs: 10_000,
        concurrency: 8,
        pollMs: 1000,
        retry: { baseMs: 5000, maxMs: 3_600_000, maxAttempts: 20 },
        allowedNetworks: [],
      },
      readers: {
        signIn: { maxAttempts: 10, windowSeconds: 900 },
        resetTokenTtlSeconds: 3600,
        failureFloorMs: 1500,
        resetPage: undefined,
      },
      mail: undefined,
      consoleIdleSeconds: 1800,
      consoleMaxAgeSeconds: 43_200,
      reportMaxAgeSeconds: 60,
      confirmationTtlSeconds: 72 * 3600,
      backups: undefined,
    });
  });

  it('treats an empty PUBLIC_URL and TRUST_PROXY as unset', () => {
    const config = loadConfig({ PUBLIC_URL: '', TRUST_PROXY: '' });
    assert.equal(config.publicUrl, undefined);
    assert.equal(config.trustProxy, false);
  });
});

describe('loadConfig accepts valid settings', () => {
  it('reads PORT as a number, 0 and 65535 included', () => {
    assert.equal(loadConfig({ PORT: '8080' }).port, 8080);
    assert.equal(loadConfig({ PORT: '0' }).port, 0);
    assert.equal(loadConfig({ PORT: '65535' }).port, 65535);
  });

  it('accepts host names, IPv4 and IPv6 addresses as HOST', () => {
    for (const HOST of ['0.0.0.0', 'localhost', 'api.example.com', '::', '::1', '[::1]']) {
      assert.equal(loadConfig({ HOST }).host, HOST);
    }
  });

  it('drops the trailing slash of PUBLIC_URL', () => {
    assert.equal(loadConfig({ PUBLIC_URL: 'https://api.example.com/v1/' }).publicUrl, 'https://api.example.com/v1');
    assert.equal(loadConfig({ PUBLIC_URL: 'http://localhost:3000' }).publicUrl, 'http://localhost:3000');
  });

  it('reads STRICT_REFERENCES true/1 and false/0', () => {
    assert.equal(loadConfig({ STRICT_REFERENCES: 'true' }).strictReferences, true);
    assert.equal(loadConfig({ STRICT_REFERENCES: '1' }).strictReferences, true);
    assert.equal(loadConfig({ STRICT_REFERENCES: 'false' }).strictReferences, false);
    assert.equal(loadConfig({ STRICT_REFERENCES: '0' }).strictReferences, false);
  });

  it('reads TRUST_PROXY true (every hop) and false, 0 as false', () => {
    assert.equal(loadConfig({ TRUST_PROXY: 'true' }).trustProxy, true);
    assert.equal(loadConfig({ TRUST_PROXY: 'false' }).trustProxy, false);
    assert.equal(loadConfig({ TRUST_PROXY: '0' }).trustProxy, false);
  });

  it('reads TRUST_PROXY as a number of proxies, 1 to 100', () => {
    assert.deepEqual(loadConfig({ TRUST_PROXY: '1' }).trustProxy, { hops: 1 });
    assert.deepEqual(loadConfig({ TRUST_PROXY: '100' }).trustProxy, { hops: 100 });
    assertRefused({ TRUST_PROXY: '101' }, 'TRUST_PROXY');
    assertRefused({ TRUST_PROXY: '-1' }, 'TRUST_PROXY');
    assertRefused({ TRUST_PROXY: '1.5' }, 'TRUST_PROXY');
  });

  it('reads TRUST_PROXY as proxy addresses, CIDR ranges and named ranges, comma-separated', () => {
    assert.deepEqual(loadConfig({ TRUST_PROXY: '10.0.0.1, 192.168.0.0/16,::1,fd00::/8,loopback' }).trustProxy, {
      proxies: ['10.0.0.1', '192.168.0.0/16', '::1', 'fd00::/8', 'loopback'],
    });
  });

  for (const value of ['10.0.0.300', '10.0.0.0/33', '10.0.0.1,', 'proxy.example.com', '10.0.0.1;10.0.0.2']) {
    it(`refuses TRUST_PROXY=${value}, naming the entry`, () => {
      assert.throws(
        () => loadConfig({ TRUST_PROXY: value }),
        (error: Error) =>
          error instanceof ConfigError &&
          error.message.includes('TRUST_PROXY') &&
          /is not an IP address/.test(error.message),
      );
    });
  }

  it('accepts every pino log level', () => {
    for (const LOG_LEVEL of ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']) {
      assert.equal(loadConfig({ LOG_LEVEL }).logLevel, LOG_LEVEL);
    }
  });

  it('reads the webhook settings', () => {
    const { webhooks } = loadConfig({
      WEBHOOK_SECRET_KEY: 'k'.repeat(32),
      WEBHOOK_DELIVERY: 'off',
      WEBHOOK_TIMEOUT_MS: '2500',
      WEBHOOK_CONCURRENCY: '2',
      WEBHOOK_POLL_MS: '100',
      WEBHOOK_RETRY_BASE_MS: '1000',
      WEBHOOK_RETRY_MAX_MS: '60000',
      WEBHOOK_MAX_ATTEMPTS: '5',
      WEBHOOK_ALLOWED_NETWORKS: '10.0.0.0/8',
    });
    assert.deepEqual(webhooks, {
      secretKey: 'k'.repeat(32),
      deliver: false,
      timeoutMs: 2500,
      concurrency: 2,
      pollMs: 100,
      retry: { baseMs: 1000, maxMs: 60_000, maxAttempts: 5 },
      allowedNetworks: parseNetworks('10.0.0.0/8'),
    });
  });

  it('reads the sign-in throttle and the reset token lifetime, in minutes', () => {
    const config = loadConfig({
      SIGN_IN_MAX_ATTEMPTS: '5',
      SIGN_IN_WINDOW_MINUTES: '30',
      PASSWORD_RESET_TTL_MINUTES: '20',
    });
    assert.deepEqual(config.readers, {
      signIn: { maxAttempts: 5, windowSeconds: 1800 },
      resetTokenTtlSeconds: 1200,
      failureFloorMs: 1500,
      resetPage: undefined,
    });
  });

  it('reads the failed sign-in floor in milliseconds, from 0 to 10000', () => {
    assert.equal(loadConfig({ SIGN_IN_FAILURE_FLOOR_MS: '400' }).readers.failureFloorMs, 400);
    assert.equal(loadConfig({ SIGN_IN_FAILURE_FLOOR_MS: '0' }).readers.failureFloorMs, 0);
    assert.throws(() => loadConfig({ SIGN_IN_FAILURE_FLOOR_MS: '10001' }), /SIGN_IN_FAILURE_FLOOR_MS/);
    assert.throws(() => loadConfig({ SIGN_IN_FAILURE_FLOOR_MS: '-1' }), /SIGN_IN_FAILURE_FLOOR_MS/);
  });

  it('reads the reset page of PASSWORD_RESET_URL, and mail with SMTP_URL, MAIL_FROM and MAIL_TEMPLATES_DIR', () => {
    const page = 'https://www.example.com/reset?token={token}';
    assert.equal(loadConfig({ PASSWORD_RESET_URL: page }).readers.resetPage, page);
    assert.equal(
      loadConfig({ PASSWORD_RESET_URL: 'http://localhost:8080/reset#{token}' }).readers.resetPage !== undefined,
      true,
    );
    const mail = {
      SMTP_URL: 'smtps://user:pa%24%24@smtp.example.com:465',
      MAIL_FROM: 'The Daily <no-reply@example.com>',
      PASSWORD_RESET_URL: page,
    };
    assert.deepEqual(loadConfig(mail).mail, {
      smtpUrl: mail.SMTP_URL,
      from: mail.MAIL_FROM,
      templatesDirectory: undefined,
    });
    assert.equal(loadConfig({ ...mail, MAIL_TEMPLATES_DIR: 'mail' }).mail?.templatesDirectory, resolve('mail'));
    assert.equal(loadConfig({ ...mail, SMTP_URL: 'smtp://127.0.0.1:2525' }).mail?.smtpUrl, 'smtp://127.0.0.1:2525');
  });

  it('reads the console session idle timeout in minutes, from 1 to 1440', () => {
    assert.equal(loadConfig({ CONSOLE_SESSION_IDLE_MINUTES: '10' }).consoleIdleSeconds, 600);
    assert.throws(() => loadConfig({ CONSOLE_SESSION_IDLE_MINUTES: '0' }), /CONSOLE_SESSION_IDLE_MINUTES/);
    assert.throws(() => loadConfig({ CONSOLE_SESSION_IDLE_MINUTES: '1441' }), /CONSOLE_SESSION_IDLE_MINUTES/);
  });

  it('reads the console session lifetime in hours, from 1 to 168', () => {
    assert.equal(loadConfig({ CONSOLE_SESSION_MAX_HOURS: '8' }).consoleMaxAgeSeconds, 8 * 3600);
    assert.throws(() => loadConfig({ CONSOLE_SESSION_MAX_HOURS: '0' }), /CONSOLE_SESSION_MAX_HOURS/);
    assert.throws(() => loadConfig({ CONSOLE_SESSION_MAX_HOURS: '169' }), /CONSOLE_SESSION_MAX_HOURS/);
  });

  it('reads at most 10,000 entries a page unless PAGE_READ_LIMIT says otherwise, from 1', () => {
    assert.equal(loadConfig({ PAGE_READ_LIMIT: '1' }).pageReadLimit, 1);
    assert.equal(loadConfig({ PAGE_READ_LIMIT: '250000' }).pageReadLimit, 250_000);
    assert.throws(() => loadConfig({ PAGE_READ_LIMIT: '0' }), /PAGE_READ_LIMIT/);
  });

  it('keeps a newsletter confirmation link working 72 hours unless CONFIRMATION_TTL_HOURS says otherwise, 1 to 2160', () => {
    assert.equal(loadConfig({ CONFIRMATION_TTL_HOURS: '1' }).confirmationTtlSeconds, 3600);
    assert.equal(loadConfig({ CONFIRMATION_TTL_HOURS: '2160' }).confirmationTtlSeconds, 2160 * 3600);
    assert.throws(() => loadConfig({ CONFIRMATION_TTL_HOURS: '0' }), /CONFIRMATION_TTL_HOURS/);
    assert.throws(() => loadConfig({ CONFIRMATION_TTL_HOURS: '2161' }), /CONFIRMATION_TTL_HOURS/);
  });

  it('keeps the dashboard report a minute unless REPORT_MAX_AGE_SECONDS says otherwise, 0 to 3600', () => {
    assert.equal(loadConfig({}).reportMaxAgeSeconds, 60);
    assert.equal(loadConfig({ REPORT_MAX_AGE_SECONDS: '0' }).reportMaxAgeSeconds, 0);
    assert.throws(() => loadConfig({ REPORT_MAX_AGE_SECONDS: '3601' }), /REPORT_MAX_AGE_SECONDS/);
  });

  it('accepts SQLITE_SYNCHRONOUS=FULL', () => {
    assert.equal(sqlite({ SQLITE_SYNCHRONOUS: 'FULL' }).synchronous, 'FULL');
  });
});

/** The SQLite settings a configuration names, asserting that it names SQLite. */
function sqlite(env: Record<string, string>) {
  const { database } = loadConfig(env);
  assert.equal(database.kind, 'sqlite');
  return database;
}

describe('loadConfig resolves the database location', () => {
  it('takes a postgres:// or postgresql:// URL with the pool settings', () => {
    for (const url of ['postgres://user:pw@db.example.com:5432/circulation', 'postgresql://db.example.com/c']) {
      assert.deepEqual(loadConfig({ DATABASE_URL: url, DATABASE_POOL_SIZE: '20' }).database, {
        kind: 'postgres',
        url,
        poolSize: 20,
        statementTimeoutMs: 5000,
        connectTimeoutMs: 2000,
      });
    }
  });

  it('sizes the PostgreSQL pool to two per core and one more, at least ten, when DATABASE_POOL_SIZE is not set', () => {
    const { database } = loadConfig({ DATABASE_URL: 'postgres://db.example.com/c' });
    assert.equal(database.kind === 'postgres' && database.poolSize, Math.max(10, 2 * availableParallelism() + 1));
  });

  it('resolves a plain relative path to an absolute path', () => {
    assert.equal(sqlite({ DATABASE_URL: 'data/x.db' }).path, resolve('data/x.db'));
  });

  it('keeps a plain absolute path', () => {
    assert.equal(sqlite({ DATABASE_URL: '/var/lib/circulation/x.db' }).path, '/var/lib/circulation/x.db');
  });

  it('reads sqlite:relative as a path relative to the working directory', () => {
    assert.equal(sqlite({ DATABASE_URL: 'sqlite:./data/x.db' }).path, resolve('./data/x.db'));
  });

  it('reads sqlite:/abs and sqlite:///abs as absolute paths', () => {
    assert.equal(sqlite({ DATABASE_URL: 'sqlite:/tmp/x.db' }).path, '/tmp/x.db');
    assert.equal(sqlite({ DATABASE_URL: 'sqlite:///tmp/x.db' }).path, '/tmp/x.db');
  });

  it('keeps :memory: as it is, plain or as sqlite::memory:', () => {
    assert.equal(sqlite({ DATABASE_URL: ':memory:' }).path, ':memory:');
    assert.equal(sqlite({ DATABASE_URL: 'sqlite::memory:' }).path, ':memory:');
  });
});

describe('loadConfig refuses invalid settings, naming the setting', () => {
  it('refuses PORT=abc', () => assertRefused({ PORT: 'abc' }, 'PORT'));
  it('refuses PORT=70000', () => assertRefused({ PORT: '70000' }, 'PORT'));
  it('refuses PORT=-1 and PORT=80.5', () => {
    assertRefused({ PORT: '-1' }, 'PORT');
    assertRefused({ PORT: '80.5' }, 'PORT');
  });
  it('refuses AUTH other than on or off', () => assertRefused({ AUTH: 'disabled' }, 'AUTH'));
  it('refuses a CIRCULATION_ADMIN_KEY shorter than 32 characters, without echoing it', () => {
    assert.throws(
      () => loadConfig({ CIRCULATION_ADMIN_KEY: 'short-secret' }),
      (error: Error) => /CIRCULATION_ADMIN_KEY/.test(error.message) && !error.message.includes('short-secret'),
    );
  });
  it('refuses a WEBHOOK_SECRET_KEY shorter than 32 characters, without echoing it', () => {
    assert.throws(
      () => loadConfig({ WEBHOOK_SECRET_KEY: 'short-webhook-key' }),
      (error: Error) => /WEBHOOK_SECRET_KEY/.test(error.message) && !error.message.includes('short-webhook-key'),
    );
  });
  it('refuses a SERVICE_SECRET_KEY shorter than 32 characters, without echoing it', () => {
    assert.throws(
      () => loadConfig({ SERVICE_SECRET_KEY: 'short-service-key' }),
      (error: Error) => /SERVICE_SECRET_KEY/.test(error.message) && !error.message.includes('short-service-key'),
    );
  });
  it('refuses an IDEMPOTENCY_RETENTION_HOURS of 0: a key must outlive its retries', () =>
    assertRefused({ IDEMPOTENCY_RETENTION_HOURS: '0' }, 'IDEMPOTENCY_RETENTION_HOURS'));
  it('refuses a DELIVERY_RETENTION_DAYS that is not a whole number', () =>
    assertRefused({ DELIVERY_RETENTION_DAYS: '1.5' }, 'DELIVERY_RETENTION_DAYS'));
  it('refuses a WEBHOOK_ALLOWED_NETWORKS entry that is not an address or a CIDR range', () =>
    assertRefused({ WEBHOOK_ALLOWED_NETWORKS: '10.0.0.0/8, intranet' }, 'WEBHOOK_ALLOWED_NETWORKS'));
  it('refuses a BODY_LIMIT_BYTES over 1 MiB', () => assertRefused({ BODY_LIMIT_BYTES: '2000000' }, 'BODY_LIMIT_BYTES'));
  it('puts the first admin secret beside a SQLite database, in the working folder otherwise, or on the terminal', () => {
    assert.equal(loadConfig({ DATABASE_URL: '/srv/c/db.sqlite' }).firstAdminKeyFile, '/srv/c/first-admin.key');
    assert.equal(loadConfig({ DATABASE_URL: 'postgres://h/db' }).firstAdminKeyFile, resolve('first-admin.key'));
    assert.equal(loadConfig({ FIRST_ADMIN_KEY_FILE: 'keys/first' }).firstAdminKeyFile, resolve('keys/first'));
    assert.equal(loadConfig({ FIRST_ADMIN_KEY_FILE: '-' }).firstAdminKeyFile, null);
  });
  it('refuses WEBHOOK_DELIVERY other than on or off', () =>
    assertRefused({ WEBHOOK_DELIVERY: 'yes' }, 'WEBHOOK_DELIVERY'));
  it('refuses a WEBHOOK_MAX_ATTEMPTS of 0', () => assertRefused({ WEBHOOK_MAX_ATTEMPTS: '0' }, 'WEBHOOK_MAX_ATTEMPTS'));
  it('refuses a RATE_LIMIT that is not a positive whole number', () =>
    assertRefused({ RATE_LIMIT: '0' }, 'RATE_LIMIT'));
  it('refuses a HOST with spaces', () => assertRefused({ HOST: 'my host' }, 'HOST'));
  it('refuses a DATABASE_POOL_SIZE that is not a positive whole number', () => {
    for (const DATABASE_POOL_SIZE of ['0', 'ten', '2.5']) {
      assertRefused({ DATABASE_URL: 'postgres://db.example.com/c', DATABASE_POOL_SIZE }, 'DATABASE_POOL_SIZE');
    }
  });
  it('refuses a DATABASE_STATEMENT_TIMEOUT_MS that is not a positive whole number', () =>
    assertRefused(
      { DATABASE_URL: 'postgres://db.example.com/c', DATABASE_STATEMENT_TIMEOUT_MS: '-5' },
      'DATABASE_STATEMENT_TIMEOUT_MS',
    ));
  it('refuses DATABASE_URL=mysql://x', () => assertRefused({ DATABASE_URL: 'mysql://x' }, 'DATABASE_URL'));
  it('refuses a sqlite: URL that names no file', () => {
    assertRefused({ DATABASE_URL: 'sqlite:' }, 'DATABASE_URL');
    assertRefused({ DATABASE_URL: 'sqlite://' }, 'DATABASE_URL');
  });
  it('refuses PUBLIC_URL=not-a-url', () => assertRefused({ PUBLIC_URL: 'not-a-url' }, 'PUBLIC_URL'));
  it('refuses a PUBLIC_URL with a query', () =>
    assertRefused({ PUBLIC_URL: 'https://api.example.com/?a=1' }, 'PUBLIC_URL'));
  it('refuses a PUBLIC_URL with a fragment', () =>
    assertRefused({ PUBLIC_URL: 'https://api.example.com/#top' }, 'PUBLIC_URL'));
  it('refuses a PUBLIC_URL that is not http(s)', () =>
    assertRefused({ PUBLIC_URL: 'ftp://files.example.com' }, 'PUBLIC_URL'));
  it('refuses TRUST_PROXY=maybe', () => assertRefused({ TRUST_PROXY: 'maybe' }, 'TRUST_PROXY'));
  it('refuses STRICT_REFERENCES=yes', () => assertRefused({ STRICT_REFERENCES: 'yes' }, 'STRICT_REFERENCES'));
  it('refuses LOG_LEVEL=loud', () => assertRefused({ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'));
  it('refuses SQLITE_SYNCHRONOUS=OFF', () => assertRefused({ SQLITE_SYNCHRONOUS: 'OFF' }, 'SQLITE_SYNCHRONOUS'));
  it('refuses a SIGN_IN_MAX_ATTEMPTS of 0', () => assertRefused({ SIGN_IN_MAX_ATTEMPTS: '0' }, 'SIGN_IN_MAX_ATTEMPTS'));
  it('refuses a SIGN_IN_WINDOW_MINUTES that is not a whole number', () =>
    assertRefused({ SIGN_IN_WINDOW_MINUTES: '1.5' }, 'SIGN_IN_WINDOW_MINUTES'));
  it('refuses a PASSWORD_RESET_TTL_MINUTES over a week', () =>
    assertRefused({ PASSWORD_RESET_TTL_MINUTES: '10081' }, 'PASSWORD_RESET_TTL_MINUTES'));
});

describe('the backup settings', () => {
  it('schedule nothing without BACKUP_DIR, and a day with 7 kept with it', () => {
    assert.equal(loadConfig({}).backups, undefined);
    assert.deepEqual(loadConfig({ BACKUP_DIR: 'backups' }).backups, {
      dir: resolve('backups'),
      intervalMinutes: 1440,
      keep: 7,
    });
    assert.deepEqual(loadConfig({ BACKUP_DIR: '/b', BACKUP_INTERVAL_MINUTES: '60', BACKUP_KEEP: '48' }).backups, {
      dir: '/b',
      intervalMinutes: 60,
      keep: 48,
    });
  });

  it('refuse an interval or a count out of range, even without BACKUP_DIR', () => {
    assertRefused({ BACKUP_INTERVAL_MINUTES: '0' }, 'BACKUP_INTERVAL_MINUTES');
    assertRefused({ BACKUP_INTERVAL_MINUTES: '10081' }, 'BACKUP_INTERVAL_MINUTES');
    assertRefused({ BACKUP_KEEP: '0' }, 'BACKUP_KEEP');
  });

  it('refuse BACKUP_DIR with PostgreSQL, naming its own tools', () => {
    assertRefused({ DATABASE_URL: 'postgres://localhost/x', BACKUP_DIR: '/b' }, 'BACKUP_DIR');
    assert.throws(() => loadConfig({ DATABASE_URL: 'postgres://localhost/x', BACKUP_DIR: '/b' }), /pg_dump -Fc/);
  });
});

describe('loadConfig refuses mail it could not send', () => {
  const page = 'https://www.example.com/reset?token={token}';
  const mail = { SMTP_URL: 'smtp://user:hunter2secret@smtp.example.com:587', MAIL_FROM: 'no-reply@example.com' };

  it('refuses SMTP_URL without MAIL_FROM', () =>
    assertRefused({ ...mail, MAIL_FROM: '', PASSWORD_RESET_URL: page }, 'MAIL_FROM'));
  it('refuses SMTP_URL without PASSWORD_RESET_URL: the mail would have no link', () =>
    assertRefused(mail, 'PASSWORD_RESET_URL'));
  it('refuses MAIL_FROM or MAIL_TEMPLATES_DIR without SMTP_URL', () => {
    assertRefused({ MAIL_FROM: 'no-reply@example.com' }, 'MAIL_FROM');
    assertRefused({ MAIL_TEMPLATES_DIR: 'mail' }, 'MAIL_TEMPLATES_DIR');
  });
  it('refuses a MAIL_FROM that is no address, or that would break the header', () => {
    assertRefused({ ...mail, MAIL_FROM: 'nobody', PASSWORD_RESET_URL: page }, 'MAIL_FROM');
    assertRefused({ ...mail, MAIL_FROM: 'a@example.com\r\nBcc: b@example.com', PASSWORD_RESET_URL: page }, 'MAIL_FROM');
  });
  it('refuses an SMTP_URL that is not smtp: or smtps:, without echoing its password', () => {
    for (const url of [
      'https://user:hunter2secret@smtp.example.com',
      'user:hunter2secret@smtp',
      'smtp://user:hunter2secret@',
    ]) {
      assertRefused({ ...mail, SMTP_URL: url, PASSWORD_RESET_URL: page }, 'SMTP_URL');
      assert.throws(
        () => loadConfig({ ...mail, SMTP_URL: url, PASSWORD_RESET_URL: page }),
        (error: Error) => !error.message.includes('hunter2secret'),
      );
    }
  });
  it('refuses a PASSWORD_RESET_URL without {token}', () =>
    assertRefused({ PASSWORD_RESET_URL: 'https://www.example.com/reset' }, 'PASSWORD_RESET_URL'));
  it('refuses a PASSWORD_RESET_URL that is not an absolute http(s) URL', () => {
    assertRefused({ PASSWORD_RESET_URL: '/reset?token={token}' }, 'PASSWORD_RESET_URL');
    assertRefused({ PASSWORD_RESET_URL: 'javascript:alert({token})' }, 'PASSWORD_RESET_URL');
    assertRefused({ PASSWORD_RESET_URL: 'ftp://example.com/{token}' }, 'PASSWORD_RESET_URL');
  });
});

describe('the list of settings', () => {
  /** The names loadConfig reads, with PostgreSQL and SQLite settings both read. */
  function namesRead(): Set<string> {
    const read = new Set<string>();
    for (const base of [{}, { DATABASE_URL: 'postgres://localhost/x' }]) {
      const env = new Proxy(base as Record<string, string | undefined>, {
        get(target, name) {
          if (typeof name === 'string') read.add(name);
          return target[name as string];
        },
      });
      loadConfig(env);
    }
    return read;
  }

  it('names every setting loadConfig reads, and nothing else', () => {
    assert.deepEqual(new Set(Object.values(SETTINGS).flat()), namesRead());
  });

  it('is in the settings table of docs/operating/settings.md, every one of them', () => {
    const page = readFileSync(new URL('../docs/operating/settings.md', import.meta.url), 'utf8');
    const missing = Object.values(SETTINGS)
      .flat()
      .filter((name) => !new RegExp(`^\\| \`${name}\``, 'm').test(page));
    assert.deepEqual(missing, []);
  });
});

describe('the print settings', () => {
  it('take an IANA zone and a cut-off days before at a time', () => {
    const { print } = loadConfig({ PUBLICATION_TIME_ZONE: 'Europe/Berlin', CHANGE_CUTOFF: '-2T06:30' });
    assert.deepEqual(print.calendar, { zone: 'Europe/Berlin', cutoff: { days: -2, second: 6 * 3600 + 30 * 60 } });
  });

  it('refuse a zone that is not one, and a cut-off after its date', () => {
    assert.throws(() => loadConfig({ PUBLICATION_TIME_ZONE: 'Berlin' }), /PUBLICATION_TIME_ZONE/);
    assert.throws(() => loadConfig({ CHANGE_CUTOFF: '1T19:00' }), /CHANGE_CUTOFF/);
    assert.throws(() => loadConfig({ HOLD_ALLOWANCE_DAYS: '400' }), /HOLD_ALLOWANCE_DAYS/);
  });

  it('take the age of a complaint from 0 (none) to 3660 days', () => {
    assert.equal(loadConfig({ COMPLAINT_MAX_AGE_DAYS: '3660' }).print.complaintMaxAgeDays, 3660);
    assert.equal(loadConfig({ COMPLAINT_MAX_AGE_DAYS: '0' }).print.complaintMaxAgeDays, 0);
    assert.throws(() => loadConfig({ COMPLAINT_MAX_AGE_DAYS: '3661' }), /COMPLAINT_MAX_AGE_DAYS/);
    assert.throws(() => loadConfig({ COMPLAINT_MAX_AGE_DAYS: '-1' }), /COMPLAINT_MAX_AGE_DAYS/);
  });
});
