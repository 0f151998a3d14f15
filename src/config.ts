/**
 * Every setting, read from the environment and checked at start. A bad value stops the start
 * with one line that names the setting, rather than surfacing later as a strange failure.
 */
import { dirname, join, resolve } from 'node:path';
import { POSTGRES_BACKUPS } from './backups/copy.js';
import type { BackupSettings } from './backups/schedule.js';
import { DEFAULT_CONFIRMATION_TTL_HOURS } from './domain/consent-links.js';
import { parseTrustProxy, type TrustProxy } from './domain/client-network.js';
import { resetUrlProblem } from './domain/password-reset.js';
import { parseNetworks, type AllowedNetworks, type RetryPolicy } from './domain/webhooks.js';
import {
  DEFAULT_COMPLAINT_MAX_AGE_DAYS,
  DEFAULT_HOLD_ALLOWANCE_DAYS,
  DEFAULT_REPEAT_COMPLAINT_DAYS,
  type PrintSettings,
} from './domain/print.js';
import { isTimeZone, MAX_CUTOFF_DAYS, parseCutoff, type ChangeCutoff } from './domain/publication.js';
import type { RetentionSettings } from './jobs/retention.js';
import {
  DEFAULT_RESET_TOKEN_TTL_MINUTES,
  DEFAULT_SIGN_IN_FAILURE_FLOOR_MS,
  DEFAULT_SIGN_IN_MAX_ATTEMPTS,
  DEFAULT_SIGN_IN_WINDOW_MINUTES,
  type ReaderSettings,
} from './use-cases/readers/settings.js';
import { DEFAULT_CONSOLE_IDLE_MINUTES, DEFAULT_CONSOLE_MAX_HOURS } from './use-cases/staff/sessions.js';
import { DEFAULT_POOL_SIZE, PAGE_READ_LIMIT, type DatabaseConfig } from './store/open.js';

export type { DatabaseConfig };

export interface Config {
  port: number;
  host: string;
  database: DatabaseConfig;
  /** STRICT_REFERENCES: refuse products and newsletters the catalogue does not know, rather than register them. */
  strictReferences: boolean;
  /** PAGE_READ_LIMIT: the most index entries a page of users checked against several filters reads. */
  pageReadLimit: number;
  /** Absolute base for links and Location, without a trailing slash; derived per request when unset. */
  publicUrl: string | undefined;
  /** TRUST_PROXY: which proxies' X-Forwarded-* to believe (domain/client-network.ts). */
  trustProxy: TrustProxy;
  /** BODY_LIMIT_BYTES: the largest request body taken. */
  bodyLimitBytes: number;
  logLevel: string;
  /** False only with AUTH=off. */
  auth: boolean;
  /** CIRCULATION_ADMIN_KEY: a secret accepted as an admin credential. */
  adminKey: string | undefined;
  /**
   * FIRST_ADMIN_KEY_FILE: where the first start writes the secret of the admin credential it
   * creates (readable by its owner only); null to show it on the terminal instead (`-`).
   */
  firstAdminKeyFile: string | null;
  rateLimit: { perSecond: number; burst: number };
  /** SERVICE_SECRET_KEY: what every keyed hash the service keeps is keyed with (see secrets/service-keys.ts). */
  serviceSecretKey: string | undefined;
  /** How long a process keeps serving after SIGTERM or SIGINT, readiness failed, asking clients to leave. */
  shutdownDrainMs: number;
  /**
   * The least time a drain keeps readiness failed, however soon every client has left: long
   * enough for a load balancer probing it to see it fail and send no new client here.
   */
  shutdownMinUnreadyMs: number;
  /** How long in-flight requests may take to finish once the server closes. */
  shutdownGraceMs: number;
  /** How often a serving process lapses subscriptions past their dateEnded; 0 never. */
  lapseIntervalSeconds: number;
  retention: RetentionConfig;
  webhooks: WebhookConfig;
  /** Readers' sign-ins (the throttle) and password reset tokens. */
  readers: ReaderSettings;
  /** Mail to readers; undefined without SMTP_URL, when circulation sends none. */
  mail: MailConfig | undefined;
  /** CONSOLE_SESSION_IDLE_MINUTES, in seconds: a console session not used for this long ends. */
  consoleIdleSeconds: number;
  /** CONSOLE_SESSION_MAX_HOURS, in seconds: a console session ends this long after its sign-in, however it is used. */
  consoleMaxAgeSeconds: number;
  /** REPORT_MAX_AGE_SECONDS: how long a process answers the dashboard's report, and a date's draw, from what it last counted. */
  reportMaxAgeSeconds: number;
  /** CONFIRMATION_TTL_HOURS, in seconds: how long a newsletter confirmation link works. */
  confirmationTtlSeconds: number;
  /** Scheduled backups of a SQLite database (BACKUP_DIR); undefined without BACKUP_DIR. */
  backups: BackupSettings | undefined;
  /** Print circulation: the publication calendar, the hold allowance, repeat complaints. */
  print: PrintSettings;
}

export interface RetentionConfig extends RetentionSettings {
  /** How often a serving process removes what has outlived its retention; 0 never. */
  intervalSeconds: number;
}

export interface WebhookConfig {
  /** WEBHOOK_SECRET_KEY: what every webhook's signing secret is derived from (and the service key without SERVICE_SECRET_KEY). */
  secretKey: string | undefined;
  /** Whether this process delivers webhooks (any number of processes may). */
  deliver: boolean;
  timeoutMs: number;
  concurrency: number;
  pollMs: number;
  retry: RetryPolicy;
  /** WEBHOOK_ALLOWED_NETWORKS: internal networks deliveries may reach (by default only public addresses). */
  allowedNetworks: AllowedNetworks;
}

export interface MailConfig {
  /** SMTP_URL, in nodemailer's URL form; it may hold a password, so it is never logged. */
  smtpUrl: string;
  /** MAIL_FROM: the From of every mail. */
  from: string;
  /** MAIL_TEMPLATES_DIR: where the publisher's templates are; the built-in ones when unset. */
  templatesDirectory: string | undefined;
}

export class ConfigError extends Error {
  constructor(setting: string, problem: string) {
    super(`invalid setting ${setting}: ${problem}`);
    this.name = 'ConfigError';
  }
}

export const DEFAULT_DATABASE_PATH = './data/circulation.db';
const FIRST_ADMIN_KEY = 'first-admin.key';

/** Every setting, by what it is about: the help and docs/operating/settings.md list them so. */
export const SETTINGS = {
  server: [
    'PORT',
    'HOST',
    'PUBLIC_URL',
    'TRUST_PROXY',
    'BODY_LIMIT_BYTES',
    'LOG_LEVEL',
    'SHUTDOWN_DRAIN_MS',
    'SHUTDOWN_MIN_UNREADY_MS',
    'SHUTDOWN_GRACE_MS',
  ],
  database: [
    'DATABASE_URL',
    'DATABASE_POOL_SIZE',
    'DATABASE_STATEMENT_TIMEOUT_MS',
    'DATABASE_CONNECT_TIMEOUT_MS',
    'PAGE_READ_LIMIT',
    'SQLITE_SYNCHRONOUS',
    'SQLITE_BUSY_TIMEOUT_MS',
  ],
  credentials: [
    'AUTH',
    'CIRCULATION_ADMIN_KEY',
    'FIRST_ADMIN_KEY_FILE',
    'SERVICE_SECRET_KEY',
    'RATE_LIMIT',
    'RATE_LIMIT_BURST',
  ],
  readers: [
    'SIGN_IN_MAX_ATTEMPTS',
    'SIGN_IN_WINDOW_MINUTES',
    'SIGN_IN_FAILURE_FLOOR_MS',
    'PASSWORD_RESET_TTL_MINUTES',
    'PASSWORD_RESET_URL',
    'CONFIRMATION_TTL_HOURS',
  ],
  mail: ['SMTP_URL', 'MAIL_FROM', 'MAIL_TEMPLATES_DIR'],
  console: ['CONSOLE_SESSION_IDLE_MINUTES', 'CONSOLE_SESSION_MAX_HOURS', 'REPORT_MAX_AGE_SECONDS'],
  catalogue: ['STRICT_REFERENCES'],
  print: [
    'PUBLICATION_TIME_ZONE',
    'CHANGE_CUTOFF',
    'HOLD_ALLOWANCE_DAYS',
    'REPEAT_COMPLAINT_DAYS',
    'COMPLAINT_MAX_AGE_DAYS',
  ],
  backups: ['BACKUP_DIR', 'BACKUP_INTERVAL_MINUTES', 'BACKUP_KEEP'],
  jobs: [
    'LAPSE_INTERVAL_SECONDS',
    'RETENTION_INTERVAL_SECONDS',
    'IDEMPOTENCY_RETENTION_HOURS',
    'DELIVERY_RETENTION_DAYS',
    'AUDIT_RETENTION_DAYS',
  ],
  webhooks: [
    'WEBHOOK_SECRET_KEY',
    'WEBHOOK_ALLOWED_NETWORKS',
    'WEBHOOK_DELIVERY',
    'WEBHOOK_TIMEOUT_MS',
    'WEBHOOK_CONCURRENCY',
    'WEBHOOK_POLL_MS',
    'WEBHOOK_RETRY_BASE_MS',
    'WEBHOOK_RETRY_MAX_MS',
    'WEBHOOK_MAX_ATTEMPTS',
  ],
} as const;

type Env = Readonly<Record<string, string | undefined>>;

export function loadConfig(env: Env = process.env): Config {
  const databaseConfig = database(env);
  return {
    port: port(env.PORT),
    host: host(env.HOST),
    database: databaseConfig,
    strictReferences: flag('STRICT_REFERENCES', env.STRICT_REFERENCES),
    pageReadLimit: integer('PAGE_READ_LIMIT', env.PAGE_READ_LIMIT, {
      default: PAGE_READ_LIMIT,
      min: 1,
      max: 10_000_000,
    }),
    publicUrl: publicUrl(env.PUBLIC_URL),
    trustProxy: trustProxy(env.TRUST_PROXY),
    bodyLimitBytes: integer('BODY_LIMIT_BYTES', env.BODY_LIMIT_BYTES, {
      default: 64 * 1024,
      min: 1024,
      max: 1024 * 1024,
    }),
    logLevel: logLevel(env.LOG_LEVEL),
    auth: onOff('AUTH', env.AUTH),
    adminKey: secret('CIRCULATION_ADMIN_KEY', env.CIRCULATION_ADMIN_KEY),
    firstAdminKeyFile: firstAdminKeyFile(env.FIRST_ADMIN_KEY_FILE, databaseConfig),
    rateLimit: {
      perSecond: integer('RATE_LIMIT', env.RATE_LIMIT, { default: 100, min: 1, max: 1_000_000 }),
      burst: integer('RATE_LIMIT_BURST', env.RATE_LIMIT_BURST, { default: 200, min: 1, max: 10_000_000 }),
    },
    serviceSecretKey: secret('SERVICE_SECRET_KEY', env.SERVICE_SECRET_KEY),
    shutdownDrainMs: integer('SHUTDOWN_DRAIN_MS', env.SHUTDOWN_DRAIN_MS, { default: 5000, min: 0, max: 600_000 }),
    shutdownMinUnreadyMs: integer('SHUTDOWN_MIN_UNREADY_MS', env.SHUTDOWN_MIN_UNREADY_MS, {
      default: 3000,
      min: 0,
      max: 600_000,
    }),
    shutdownGraceMs: integer('SHUTDOWN_GRACE_MS', env.SHUTDOWN_GRACE_MS, { default: 10_000, min: 0, max: 600_000 }),
    lapseIntervalSeconds: integer('LAPSE_INTERVAL_SECONDS', env.LAPSE_INTERVAL_SECONDS, {
      default: 0,
      min: 0,
      max: 86_400,
    }),
    readers: {
      signIn: {
        maxAttempts: integer('SIGN_IN_MAX_ATTEMPTS', env.SIGN_IN_MAX_ATTEMPTS, {
          default: DEFAULT_SIGN_IN_MAX_ATTEMPTS,
          min: 1,
          max: 1000,
        }),
        windowSeconds:
          60 *
          integer('SIGN_IN_WINDOW_MINUTES', env.SIGN_IN_WINDOW_MINUTES, {
            default: DEFAULT_SIGN_IN_WINDOW_MINUTES,
            min: 1,
            max: 1440,
          }),
      },
      resetTokenTtlSeconds:
        60 *
        integer('PASSWORD_RESET_TTL_MINUTES', env.PASSWORD_RESET_TTL_MINUTES, {
          default: DEFAULT_RESET_TOKEN_TTL_MINUTES,
          min: 1,
          max: 10_080,
        }),
      failureFloorMs: integer('SIGN_IN_FAILURE_FLOOR_MS', env.SIGN_IN_FAILURE_FLOOR_MS, {
        default: DEFAULT_SIGN_IN_FAILURE_FLOOR_MS,
        min: 0,
        max: 10_000,
      }),
      resetPage: resetPage(env.PASSWORD_RESET_URL),
    },
    mail: mail(env),
    consoleIdleSeconds:
      60 *
      integer('CONSOLE_SESSION_IDLE_MINUTES', env.CONSOLE_SESSION_IDLE_MINUTES, {
        default: DEFAULT_CONSOLE_IDLE_MINUTES,
        min: 1,
        max: 1440,
      }),
    consoleMaxAgeSeconds:
      3600 *
      integer('CONSOLE_SESSION_MAX_HOURS', env.CONSOLE_SESSION_MAX_HOURS, {
        default: DEFAULT_CONSOLE_MAX_HOURS,
        min: 1,
        max: 168,
      }),
    reportMaxAgeSeconds: integer('REPORT_MAX_AGE_SECONDS', env.REPORT_MAX_AGE_SECONDS, {
      default: 60,
      min: 0,
      max: 3600,
    }),
    confirmationTtlSeconds:
      3600 *
      integer('CONFIRMATION_TTL_HOURS', env.CONFIRMATION_TTL_HOURS, {
        default: DEFAULT_CONFIRMATION_TTL_HOURS,
        min: 1,
        max: 2160,
      }),
    backups: backups(env, databaseConfig),
    print: {
      calendar: { zone: timeZone(env.PUBLICATION_TIME_ZONE), cutoff: cutoff(env.CHANGE_CUTOFF) },
      holdAllowanceDays: integer('HOLD_ALLOWANCE_DAYS', env.HOLD_ALLOWANCE_DAYS, {
        default: DEFAULT_HOLD_ALLOWANCE_DAYS,
        min: 0,
        max: 366,
      }),
      repeatComplaintDays: integer('REPEAT_COMPLAINT_DAYS', env.REPEAT_COMPLAINT_DAYS, {
        default: DEFAULT_REPEAT_COMPLAINT_DAYS,
        min: 0,
        max: 366,
      }),
      complaintMaxAgeDays: integer('COMPLAINT_MAX_AGE_DAYS', env.COMPLAINT_MAX_AGE_DAYS, {
        default: DEFAULT_COMPLAINT_MAX_AGE_DAYS,
        min: 0,
        max: 3660,
      }),
    },
    retention: {
      intervalSeconds: integer('RETENTION_INTERVAL_SECONDS', env.RETENTION_INTERVAL_SECONDS, {
        default: 600,
        min: 0,
        max: 86_400,
      }),
      idempotencyHours: integer('IDEMPOTENCY_RETENTION_HOURS', env.IDEMPOTENCY_RETENTION_HOURS, {
        default: 24,
        min: 1,
        max: 720,
      }),
      deliveryDays: integer('DELIVERY_RETENTION_DAYS', env.DELIVERY_RETENTION_DAYS, {
        default: 30,
        min: 0,
        max: 36_500,
      }),
      auditDays: integer('AUDIT_RETENTION_DAYS', env.AUDIT_RETENTION_DAYS, { default: 0, min: 0, max: 36_500 }),
    },
    webhooks: {
      secretKey: secret('WEBHOOK_SECRET_KEY', env.WEBHOOK_SECRET_KEY),
      deliver: onOff('WEBHOOK_DELIVERY', env.WEBHOOK_DELIVERY),
      timeoutMs: integer('WEBHOOK_TIMEOUT_MS', env.WEBHOOK_TIMEOUT_MS, { default: 10_000, min: 100, max: 120_000 }),
      concurrency: integer('WEBHOOK_CONCURRENCY', env.WEBHOOK_CONCURRENCY, { default: 8, min: 1, max: 256 }),
      pollMs: integer('WEBHOOK_POLL_MS', env.WEBHOOK_POLL_MS, { default: 1000, min: 10, max: 60_000 }),
      retry: {
        baseMs: integer('WEBHOOK_RETRY_BASE_MS', env.WEBHOOK_RETRY_BASE_MS, { default: 5000, min: 1, max: 3_600_000 }),
        maxMs: integer('WEBHOOK_RETRY_MAX_MS', env.WEBHOOK_RETRY_MAX_MS, {
          default: 3_600_000,
          min: 1,
          max: 86_400_000,
        }),
        maxAttempts: integer('WEBHOOK_MAX_ATTEMPTS', env.WEBHOOK_MAX_ATTEMPTS, { default: 20, min: 1, max: 100 }),
      },
      allowedNetworks: networks('WEBHOOK_ALLOWED_NETWORKS', env.WEBHOOK_ALLOWED_NETWORKS),
    },
  };
}

function port(value = '3000'): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 0 || n > 65535)
    throw new ConfigError('PORT', `"${value}" is not a port number (0-65535)`);
  return n;
}

function host(value = '127.0.0.1'): string {
  if (!/^[A-Za-z0-9.:\-[\]]+$/.test(value)) throw new ConfigError('HOST', `"${value}" is not a host name or address`);
  return value;
}

function database(env: Env): DatabaseConfig {
  const url = env.DATABASE_URL || DEFAULT_DATABASE_PATH;
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(url)?.[1]?.toLowerCase();
  if (scheme === 'postgres' || scheme === 'postgresql') {
    try {
      new URL(url);
    } catch {
      throw new ConfigError('DATABASE_URL', 'is not a valid postgres:// URL');
    }
    return {
      kind: 'postgres',
      url,
      poolSize: integer('DATABASE_POOL_SIZE', env.DATABASE_POOL_SIZE, {
        default: DEFAULT_POOL_SIZE,
        min: 1,
        max: 1000,
      }),
      statementTimeoutMs: integer('DATABASE_STATEMENT_TIMEOUT_MS', env.DATABASE_STATEMENT_TIMEOUT_MS, {
        default: 5000,
        min: 1,
        max: 3_600_000,
      }),
      connectTimeoutMs: integer('DATABASE_CONNECT_TIMEOUT_MS', env.DATABASE_CONNECT_TIMEOUT_MS, {
        default: 2000,
        min: 1,
        max: 600_000,
      }),
    };
  }
  if (scheme !== undefined && scheme !== 'sqlite' && url.startsWith(`${scheme}:/`)) {
    throw new ConfigError(
      'DATABASE_URL',
      `"${url}" is neither a SQLite file path, a sqlite: URL nor a postgres:// URL`,
    );
  }
  const synchronous = env.SQLITE_SYNCHRONOUS || 'NORMAL';
  if (synchronous !== 'NORMAL' && synchronous !== 'FULL') {
    throw new ConfigError('SQLITE_SYNCHRONOUS', `"${synchronous}" is neither NORMAL nor FULL`);
  }
  const path = scheme === 'sqlite' ? url.slice('sqlite:'.length).replace(/^\/\//, '') : url;
  if (path === '') throw new ConfigError('DATABASE_URL', 'the sqlite: URL names no file');
  return {
    kind: 'sqlite',
    path: path === ':memory:' ? path : resolve(path),
    synchronous,
    busyTimeoutMs: integer('SQLITE_BUSY_TIMEOUT_MS', env.SQLITE_BUSY_TIMEOUT_MS, {
      default: 1000,
      min: 0,
      max: 60_000,
    }),
  };
}

/**
 * Read whether or not BACKUP_DIR is set, so that a bad interval is refused before anyone relies on
 * it. With PostgreSQL, BACKUP_DIR stops the start: a process that seems to back up and does not
 * would be found out on the day a backup is needed.
 */
function backups(env: Env, database: DatabaseConfig): BackupSettings | undefined {
  const intervalMinutes = integer('BACKUP_INTERVAL_MINUTES', env.BACKUP_INTERVAL_MINUTES, {
    default: 1440,
    min: 1,
    max: 10_080,
  });
  const keep = integer('BACKUP_KEEP', env.BACKUP_KEEP, { default: 7, min: 1, max: 10_000 });
  const dir = env.BACKUP_DIR;
  if (dir === undefined || dir === '') return undefined;
  if (database.kind === 'postgres') throw new ConfigError('BACKUP_DIR', POSTGRES_BACKUPS);
  return { dir: resolve(dir), intervalMinutes, keep };
}

/** Beside a SQLite database, where its owner looks; in the working folder otherwise. */
function firstAdminKeyFile(value: string | undefined, database: DatabaseConfig): string | null {
  if (value === '-') return null;
  if (value) return resolve(value);
  if (database.kind === 'sqlite' && database.path !== ':memory:') return join(dirname(database.path), FIRST_ADMIN_KEY);
  return resolve(FIRST_ADMIN_KEY);
}

/** What a whole-number setting is when unset, and the bounds it must be within (both included). */
interface IntegerBounds {
  default: number;
  min: number;
  max: number;
}

function integer(setting: string, value: string | undefined, { default: fallback, min, max }: IntegerBounds): number {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < min || n > max) {
    throw new ConfigError(setting, `"${value}" is not a whole number from ${min} to ${max}`);
  }
  return n;
}

function timeZone(value: string | undefined): string {
  if (value === undefined || value === '') return 'UTC';
  if (!isTimeZone(value)) {
    throw new ConfigError('PUBLICATION_TIME_ZONE', `"${value}" is not an IANA time zone, such as Europe/Berlin`);
  }
  return value;
}

function cutoff(value = '-1T19:00'): ChangeCutoff {
  const parsed = parseCutoff(value);
  if (!parsed) {
    throw new ConfigError(
      'CHANGE_CUTOFF',
      `"${value}" is not days before the date (0 to -${MAX_CUTOFF_DAYS}) and a time, such as -1T19:00`,
    );
  }
  return parsed;
}

function publicUrl(value: string | undefined): string | undefined {
  if (value === undefined || value === '') return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError('PUBLIC_URL', `"${value}" is not an absolute URL`);
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.search || url.hash) {
    throw new ConfigError('PUBLIC_URL', `"${value}" must be an http(s) URL without query or fragment`);
  }
  return url.href.replace(/\/+$/, '');
}

function resetPage(value: string | undefined): string | undefined {
  if (value === undefined || value === '') return undefined;
  const problem = resetUrlProblem(value);
  if (problem) {
    throw new ConfigError(
      'PASSWORD_RESET_URL',
      `"${value}" ${problem}: give the reset page on your site, e.g. https://www.example.com/reset?token={token}`,
    );
  }
  return value;
}

function mail(env: Env): MailConfig | undefined {
  const url = env.SMTP_URL || undefined;
  const from = env.MAIL_FROM || undefined;
  const templates = env.MAIL_TEMPLATES_DIR || undefined;
  if (url === undefined) {
    if (from !== undefined) throw new ConfigError('MAIL_FROM', 'is set but SMTP_URL is not: mail needs both');
    if (templates !== undefined) {
      throw new ConfigError('MAIL_TEMPLATES_DIR', 'is set but SMTP_URL is not: templates need mail to be sent');
    }
    return undefined;
  }
  // Never echo SMTP_URL: it may hold the server's password.
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ConfigError('SMTP_URL', 'is not a URL: give smtp://user:password@host:587 or smtps://…');
  }
  if (parsed.protocol !== 'smtp:' && parsed.protocol !== 'smtps:') {
    throw new ConfigError('SMTP_URL', `has the scheme ${parsed.protocol.slice(0, 20)} where smtp: or smtps: goes`);
  }
  if (parsed.hostname === '') throw new ConfigError('SMTP_URL', 'names no host');
  if (from === undefined) {
    throw new ConfigError(
      'MAIL_FROM',
      'is required with SMTP_URL: the address mails come from, e.g. "Publisher <no-reply@example.com>"',
    );
  }
  if (!/^[^\r\n]*@[^\r\n]*$/.test(from)) {
    throw new ConfigError('MAIL_FROM', `"${from.replace(/[\r\n]/g, ' ')}" is not an email address`);
  }
  if (env.PASSWORD_RESET_URL === undefined || env.PASSWORD_RESET_URL === '') {
    throw new ConfigError(
      'PASSWORD_RESET_URL',
      'is required with SMTP_URL: the reset mail links to that page on your site, e.g. https://www.example.com/reset?token={token}',
    );
  }
  return { smtpUrl: url, from, templatesDirectory: templates === undefined ? undefined : resolve(templates) };
}

function onOff(setting: string, value = 'on'): boolean {
  if (value === 'on') return true;
  if (value === 'off') return false;
  throw new ConfigError(setting, `"${value}" is neither on nor off`);
}

function secret(setting: string, value: string | undefined): string | undefined {
  if (value === undefined || value === '') return undefined;
  // Never echo the value: it is a secret.
  if (value.length < 32) throw new ConfigError(setting, 'must be at least 32 characters long');
  return value;
}

function networks(setting: string, value = ''): AllowedNetworks {
  try {
    return parseNetworks(value);
  } catch (error) {
    throw new ConfigError(setting, `${(error as Error).message}; give addresses or CIDR ranges, comma-separated`);
  }
}

function trustProxy(value = ''): TrustProxy {
  try {
    return parseTrustProxy(value);
  } catch (error) {
    throw new ConfigError(
      'TRUST_PROXY',
      `${(error as Error).message}; give true, false, the number of proxies in front, or their addresses or CIDR ranges, comma-separated`,
    );
  }
}

function flag(setting: string, value: string | undefined): boolean {
  if (value === undefined || value === '' || value === 'false' || value === '0') return false;
  if (value === 'true' || value === '1') return true;
  throw new ConfigError(setting, `"${value}" is not true or false`);
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

function logLevel(value = 'info'): string {
  if (!LOG_LEVELS.includes(value))
    throw new ConfigError('LOG_LEVEL', `"${value}" is not one of ${LOG_LEVELS.join(', ')}`);
  return value;
}
