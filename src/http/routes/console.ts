/**
 * /console: the customer-service console, a browser application built into dist/console by
 * console/build.mjs (the `prepare` and `build` steps). The shell is revalidated on every visit;
 * the script and style it names carry a hash of their content in their names, so browsers keep
 * them for a year. Everything runs under a policy that lets only the service's own script,
 * style and API be used: no inline script, no eval, nothing from elsewhere. The files are read
 * once, when the service starts.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyPluginAsync } from 'fastify';
import { Type } from '@sinclair/typebox';
import { errors } from '../errors.js';

/** Where `npm run build` puts the console, from src/http/routes or dist/http/routes alike. */
export const BUILT_CONSOLE_DIR = fileURLToPath(new URL('../../../dist/console', import.meta.url));

export const CONSOLE_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "font-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const MEDIA_TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.woff2': 'font/woff2',
  '.svg': 'image/svg+xml',
};

const AssetParams = Type.Object({ file: Type.String({ maxLength: 200 }) });

export const consoleRoutes: FastifyPluginAsync<{ directory?: string | undefined }> = async (app, options) => {
  const directory = options.directory ?? BUILT_CONSOLE_DIR;
  const shellPath = join(directory, 'index.html');
  const shell = existsSync(shellPath) ? readFileSync(shellPath) : undefined;
  if (!shell) app.log.warn({ directory }, 'the console is not built (npm run build): /console answers 404');
  const assets = new Map<string, { body: Buffer; type: string }>();
  const assetDir = join(directory, 'assets');
  for (const name of existsSync(assetDir) ? readdirSync(assetDir) : []) {
    const type = MEDIA_TYPES[extname(name)];
    if (type) assets.set(name, { body: readFileSync(join(assetDir, name)), type });
  }
  const config = { scope: 'public' as const, ownMediaType: true, ownPolicy: true };

  app.get('/console', { config }, async (request, reply) => {
    if (!shell) throw errors.routeNotFound(request.method, '/console');
    return reply
      .type('text/html; charset=utf-8')
      .header('content-security-policy', CONSOLE_POLICY)
      .header('cache-control', 'no-cache')
      .send(shell);
  });

  app.get('/console/assets/:file', { config, schema: { params: AssetParams } }, async (request, reply) => {
    const { file } = request.params as { file: string };
    const asset = assets.get(file);
    if (!asset) throw errors.routeNotFound(request.method, request.url);
    return reply
      .type(asset.type)
      .header('content-security-policy', CONSOLE_POLICY)
      .header('cache-control', 'public, max-age=31536000, immutable')
      .send(asset.body);
  });
};
