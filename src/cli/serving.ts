/**
 * What `circulation serve` does (serve.ts): open the store, start the HTTP application, the
 * timed jobs and webhook delivery, make sure someone can get in, and close cleanly on SIGTERM or
 * SIGINT.
 */
import { relative } from 'node:path';
import { startBackups, type Backups } from '../backups/schedule.js';
import type { Config } from '../config.js';
import { issueFirstAdminCredential } from '../secrets/api-credentials.js';
import { buildApp } from '../http/app.js';
import { startJobs, type Jobs } from '../jobs/schedule.js';
import { smtpMailer } from '../mail/smtp.js';
import { loadMailTemplates, TemplateError, type MailTemplates } from '../mail/templates.js';
import type { Store } from '../store/port.js';
import { startDispatcher, type Dispatcher } from '../webhooks/dispatcher.js';
import { serviceKeysOf } from '../secrets/service-keys.js';
import { CommandError } from './command.js';
import { openForCommand } from './database.js';
import { logging } from './logging.js';
import { writePrivateFile } from './private-file.js';

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);

export async function serve(config: Config): Promise<void> {
  if (!config.auth && !LOOPBACK.has(config.host)) {
    throw new Error(`AUTH=off lets anyone in, so it listens only on loopback, not on HOST=${config.host}`);
  }
  // Before anything opens: a template that cannot be used stops the start, not a reader's reset.
  const mailTemplates = config.mail && templatesOf(config.mail.templatesDirectory);
  const store = await openForCommand(config, { create: true });
  const log = logging(config.logLevel);
  const keys = serviceKeysOf(
    { serviceKey: config.serviceSecretKey, webhookKey: config.webhooks.secretKey },
    config.database,
  );
  let dispatcher: Dispatcher | undefined;
  let jobs: Jobs | undefined;
  let backups: Backups | undefined;
  const app = await buildApp({
    store,
    publicUrl: config.publicUrl,
    trustProxy: config.trustProxy,
    bodyLimitBytes: config.bodyLimitBytes,
    auth: { enabled: config.auth, adminKey: config.adminKey, rateLimit: config.rateLimit },
    readers: config.readers,
    mail: config.mail && {
      mailer: smtpMailer({ url: config.mail.smtpUrl, from: config.mail.from }),
      templates: mailTemplates,
    },
    consoleIdleSeconds: config.consoleIdleSeconds,
    consoleMaxAgeSeconds: config.consoleMaxAgeSeconds,
    reportMaxAgeSeconds: config.reportMaxAgeSeconds,
    confirmationTtlSeconds: config.confirmationTtlSeconds,
    print: config.print,
    logger: log.options,
    keys,
    idempotencyHours: config.retention.idempotencyHours,
    storeCallBoundMs:
      config.database.kind === 'postgres'
        ? config.database.connectTimeoutMs + config.database.statementTimeoutMs
        : config.database.busyTimeoutMs,
    webhooks: { changed: () => dispatcher?.wake(), allowedNetworks: config.webhooks.allowedNetworks },
  });
  if (config.mail) {
    // The host alone: the URL may hold the server's password.
    const { host } = new URL(config.mail.smtpUrl);
    app.log.info(
      { smtpHost: host, templates: config.mail.templatesDirectory ?? 'built-in' },
      'mailing password resets',
    );
  }
  if (!config.auth) app.log.warn('AUTH=off: every request is let in without a credential; for local experiments only');
  if (!keys.webhook || !keys.fingerprint) {
    app.log.warn(
      'webhooks and idempotency keys are off: on PostgreSQL they need SERVICE_SECRET_KEY, the same in every process',
    );
  }

  let closing = false;
  const drained = new AbortController();
  const shutdown = async (signal: string) => {
    // A second signal cuts the drain short: whoever sends it wants the process gone now.
    if (closing) return drained.abort();
    closing = true;
    app.log.info(
      {
        signal,
        drainMs: config.shutdownDrainMs,
        minUnreadyMs: config.shutdownMinUnreadyMs,
        graceMs: config.shutdownGraceMs,
      },
      'shutting down: draining (a second signal stops it), then finishing requests in flight',
    );
    const jobsEnded = jobs?.stop();
    const backupsEnded = backups?.stop();
    await app.drain(config.shutdownDrainMs, { minUnreadyMs: config.shutdownMinUnreadyMs, stop: drained.signal });
    const deadline = setTimeout(() => {
      app.log.error('requests still in flight at the end of the grace period; exiting without them');
      process.exit(1);
    }, config.shutdownGraceMs);
    deadline.unref();
    await app.close();
    await dispatcher?.stop();
    await jobsEnded;
    await backupsEnded;
    await store.close();
    app.log.info('shut down cleanly');
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));

  await app.listen({ port: config.port, host: config.host });
  log.flush();
  jobs = startJobs(
    store,
    {
      lapseIntervalSeconds: config.lapseIntervalSeconds,
      signInWindowSeconds: config.readers.signIn.windowSeconds,
      consoleIdleSeconds: config.consoleIdleSeconds,
      consoleMaxAgeSeconds: config.consoleMaxAgeSeconds,
      retentionIntervalSeconds: config.retention.intervalSeconds,
      retention: config.retention,
    },
    app.log,
  );
  if (config.backups) backups = startBackups(store, config.backups, app.log);
  if (keys.webhook && config.webhooks.deliver) {
    dispatcher = startDispatcher(store, { ...config.webhooks, key: keys.webhook, log: app.log });
  }
  if (config.auth && config.adminKey === undefined) {
    await announceFirstCredential(store, app.listeningOrigin, config.firstAdminKeyFile);
  }
}

function templatesOf(directory: string | undefined): MailTemplates {
  try {
    return loadMailTemplates(directory);
  } catch (error) {
    if (error instanceof TemplateError) throw new CommandError(`MAIL_TEMPLATES_DIR: ${error.message}`);
    throw error;
  }
}

/**
 * On the very first start, with no credential anywhere, creates an admin credential so that `npm
 * start` works out of the box, and writes its secret to a file only its owner can read, printing
 * where: the terminal's output is often collected as logs, where no secret belongs. With
 * FIRST_ADMIN_KEY_FILE=- the secret is shown on the terminal instead (stderr, outside the JSON log).
 */
async function announceFirstCredential(store: Store, origin: string, file: string | null): Promise<void> {
  const first = await issueFirstAdminCredential(store);
  if (!first) return;
  const intro = `\nCreated the first admin credential (id ${first.key.id}).`;
  const next = `Create narrower credentials with POST /api-keys or \`bin/circulation keys create\`.\n\n`;
  if (file === null) {
    process.stderr.write(
      `${intro} Its secret is shown only this once:\n\n  ${first.secret}\n\n` +
        `Send it with every request:  curl -H "Authorization: Bearer ${first.secret}" ${origin}/users\n${next}`,
    );
    return;
  }
  try {
    await writePrivateFile(file, `${first.secret}\n`);
  } catch (error) {
    process.stderr.write(
      `${intro} Its secret could not be written to ${file} (${(error as Error).message}); ` +
        'create another admin credential with `bin/circulation keys create --name admin --scope admin`.\n',
    );
    return;
  }
  const near = relative(process.cwd(), file);
  const path = near.startsWith('..') ? file : near;
  const shown = /^[\w./-]+$/.test(path) ? path : `'${path.replaceAll("'", "'\\''")}'`;
  process.stderr.write(
    `${intro} Its secret is in ${file}, readable only by you,\nand shown nowhere else. ` +
      `Keep it in your secret store, then delete the file. Send it with every request:\n\n` +
      `  export CIRCULATION_KEY=$(cat ${shown})\n  curl -H "Authorization: Bearer $CIRCULATION_KEY" ${origin}/users\n\n${next}`,
  );
}
