/**
 * Serving: open the store, make sure someone can get in, listen, and close cleanly on SIGTERM
 * or SIGINT.
 */
import { pino } from 'pino';
import type { Config } from '../config.js';
import { issueFirstAdminCredential } from '../credentials/issue.js';
import { buildApp } from '../http/app.js';
import { lapseDue } from '../jobs/lapse.js';
import { openStore } from '../store/open.js';
import { startDispatcher, type Dispatcher } from '../webhooks/dispatcher.js';
import { webhookKeyOf } from '../webhooks/key.js';

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);

export async function serve(config: Config): Promise<void> {
  if (!config.auth && !LOOPBACK.has(config.host)) {
    throw new Error(`AUTH=off lets anyone in, so it listens only on loopback, not on HOST=${config.host}`);
  }
  const store = await openStore(config.database);
  const log = logging(config.logLevel);
  const webhookKey = webhookKeyOf(config.webhooks.secretKey, config.database);
  let dispatcher: Dispatcher | undefined;
  const app = await buildApp({
    store,
    publicUrl: config.publicUrl,
    trustProxy: config.trustProxy,
    auth: { enabled: config.auth, adminKey: config.adminKey, rateLimit: config.rateLimit },
    logger: log.options,
    webhooks: { key: webhookKey, changed: () => dispatcher?.wake() },
  });
  if (!config.auth) app.log.warn('AUTH=off: every request is let in without a credential; for local experiments only');
  if (!webhookKey)
    app.log.warn('webhooks are off: on PostgreSQL they need WEBHOOK_SECRET_KEY, the same in every process');

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal, graceMs: config.shutdownGraceMs }, 'shutting down: finishing requests in flight');
    const deadline = setTimeout(() => {
      app.log.error('requests still in flight at the end of the grace period; exiting without them');
      process.exit(1);
    }, config.shutdownGraceMs);
    deadline.unref();
    await app.close();
    await dispatcher?.stop();
    await store.close();
    app.log.info('shut down cleanly');
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));

  await app.listen({ port: config.port, host: config.host });
  log.flush();
  if (config.lapseIntervalSeconds > 0) {
    const lapse = async () => {
      try {
        const lapsed = await lapseDue(store);
        if (lapsed > 0) app.log.info({ lapsed }, 'subscriptions lapsed');
      } catch (error) {
        app.log.error({ err: error }, 'lapsing failed; trying again at the next interval');
      }
    };
    setInterval(() => void lapse(), config.lapseIntervalSeconds * 1000).unref();
  }
  if (webhookKey && config.webhooks.deliver) {
    dispatcher = startDispatcher(store, { ...config.webhooks, key: webhookKey, log: app.log });
  }
  if (config.auth && config.adminKey === undefined) await announceFirstCredential(store, app.listeningOrigin);
}

/**
 * JSON lines for machines; readable lines when a person watches the terminal. Requests are
 * logged by our own hook, which writes no header and no body, so no secret can reach the log.
 * JSON lines are buffered (up to 4 KiB, flushed every second and on exit) rather than written
 * one system call each: that cost a tenth of the throughput of a single-record read.
 */
function logging(level: string) {
  const common = { level, redact: ['req.headers.authorization', 'req.headers.cookie'] };
  if (process.stdout.isTTY) {
    const transport = { target: 'pino-pretty', options: { translateTime: 'SYS:HH:MM:ss.l' } };
    return { options: { ...common, transport }, flush: () => {} };
  }
  const stream = pino.destination({ dest: 1, sync: false, minLength: 4096 });
  const flush = () => {
    try {
      stream.flushSync();
    } catch {
      // Not open yet, or already closed: nothing to flush.
    }
  };
  setInterval(flush, 1000).unref();
  process.on('exit', flush);
  return { options: { ...common, stream }, flush };
}

/**
 * On the very first start, with no credential anywhere, creates an admin credential and prints
 * its secret once, to stderr and outside the JSON log, so that `npm start` works out of the box.
 */
async function announceFirstCredential(store: Awaited<ReturnType<typeof openStore>>, origin: string): Promise<void> {
  const first = await issueFirstAdminCredential(store);
  if (!first) return;
  process.stderr.write(
    `\nCreated the first admin credential (id ${first.key.id}). Its secret is shown only this once:\n\n` +
      `  ${first.secret}\n\n` +
      `Send it with every request:  curl -H "Authorization: Bearer ${first.secret}" ${origin}/users\n` +
      `Create narrower credentials with POST /api-keys or \`npx circulation keys create\`.\n\n`,
  );
}
