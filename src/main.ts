/**
 * The process entry: read the settings, open the store, serve, and close cleanly on a signal.
 */
import { buildApp } from './http/app.js';
import { ConfigError, loadConfig, type Config } from './config.js';
import { openStore } from './store/open.js';

async function main(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`circulation: ${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }

  const store = await openStore(config.database);
  const app = await buildApp({
    store,
    publicUrl: config.publicUrl,
    trustProxy: config.trustProxy,
    logger: {
      level: config.logLevel,
      redact: ['req.headers.authorization', 'req.headers.cookie'],
    },
  });

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down');
    await app.close();
    await store.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));

  await app.listen({ port: config.port, host: config.host });
}

main().catch((error: unknown) => {
  process.stderr.write(`circulation: could not start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
