/**
 * JSON:API content negotiation. Requests may send `application/vnd.api+json` (without media
 * type parameters other than `profile`) or plain `application/json`; responses are always the
 * exact `application/vnd.api+json`, which Fastify would otherwise extend with a charset.
 */
import type { FastifyInstance } from 'fastify';
import { errors } from '../domain/errors.js';

export const JSONAPI = 'application/vnd.api+json';

interface MediaRange {
  type: string;
  params: Map<string, string>;
}

function parseMediaRange(text: string): MediaRange {
  const [essence = '', ...rest] = text.split(';');
  const params = new Map<string, string>();
  for (const param of rest) {
    const eq = param.indexOf('=');
    const name = (eq === -1 ? param : param.slice(0, eq)).trim().toLowerCase();
    if (name === 'q' || name === '') continue;
    params.set(name, eq === -1 ? '' : param.slice(eq + 1).trim());
  }
  return { type: essence.trim().toLowerCase(), params };
}

/** JSON:API allows `profile` (which a server may ignore); `ext` and anything else it must refuse. */
function hasOnlyIgnorableParams(range: MediaRange): boolean {
  return [...range.params.keys()].every((name) => name === 'profile');
}

export function isAcceptableContentType(header: string): boolean {
  const range = parseMediaRange(header);
  if (range.type === JSONAPI) return hasOnlyIgnorableParams(range);
  if (range.type === 'application/json') {
    const charset = range.params.get('charset');
    return charset === undefined || charset.replace(/"/g, '').toLowerCase() === 'utf-8';
  }
  return false;
}

export function isAcceptable(header: string | undefined): boolean {
  if (header === undefined || header.trim() === '') return true;
  const ranges = header.split(',').map(parseMediaRange);
  const jsonapi = ranges.filter((r) => r.type === JSONAPI);
  if (jsonapi.some(hasOnlyIgnorableParams)) return true;
  // A client that names JSON:API only with parameters we cannot honour must get a 406.
  if (jsonapi.length > 0) return false;
  return ranges.some((r) => ['application/json', 'application/*', '*/*'].includes(r.type));
}

export function registerMediaTypes(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    [JSONAPI, 'application/json'],
    { parseAs: 'string' },
    (_request, body: string, done) => {
      if (body.trim() === '') return done(null, undefined);
      try {
        done(null, JSON.parse(body));
      } catch {
        // The parser's message quotes the body, which may hold a password: say no more than this.
        done(errors.problemsParsingJson(), undefined);
      }
    },
  );

  app.addHook('onRequest', async (request) => {
    if (!isAcceptable(request.headers.accept)) throw errors.notAcceptable();
    const contentType = request.headers['content-type'];
    if (contentType !== undefined && !isAcceptableContentType(contentType)) throw errors.unsupportedMediaType();
  });

  app.addHook('onSend', async (_request, reply, payload) => {
    if (payload !== undefined && payload !== null && payload !== '') reply.header('content-type', JSONAPI);
    return payload;
  });
}
