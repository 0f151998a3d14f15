/**
 * Serving: open the store, listen, and close cleanly on SIGTERM or SIGINT.
 */
import type { Config } from './config.js';
import { buildApp } from './http/app.js';
import { openStore } from './store/open.js';

export async function serve(config: Config): Promise<void> {
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
