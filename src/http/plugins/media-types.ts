/**
 * JSON:API content negotiation. Requests may send `application/vnd.api+json` (without media
 * type parameters other than `profile`) or plain `application/json`; responses are always the
 * exact `application/vnd.api+json`, which Fastify would otherwise extend with a charset.
 */
import { shapeProblems } from '../../domain/bounds.js';
import { errors } from '../errors.js';
import fp from 'fastify-plugin';

export const JSONAPI = 'application/vnd.api+json';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route answers in a media type of its own (metrics, docs): JSON:API negotiation does not apply. */
    ownMediaType?: boolean;
  }
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

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

export const mediaTypes = fp(
  async (app) => {
    app.removeAllContentTypeParsers();
    app.addContentTypeParser([JSONAPI, 'application/json'], { parseAs: 'buffer' }, (_request, raw: Buffer, done) => {
      let text: string;
      try {
        text = utf8.decode(raw);
      } catch {
        return done(errors.problemsParsingJson('The request body is not valid UTF-8.'), undefined);
      }
      if (text.trim() === '') return done(null, undefined);
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        // The parser's message quotes the body, which may hold a password: say no more than this.
        return done(errors.problemsParsingJson(), undefined);
      }
      // Only a document has a shape to check; anything else is refused by validation as not one.
      const problems = typeof body === 'object' && body !== null && !Array.isArray(body) ? shapeProblems(body) : [];
      done(problems.length > 0 ? errors.invalidAttributes(problems) : null, body);
    });

    app.addHook('onRequest', async (request) => {
      if (request.routeOptions.config?.ownMediaType) return;
      if (!isAcceptable(request.headers.accept)) throw errors.notAcceptable();
      const encoding = request.headers['content-encoding'];
      if (encoding !== undefined && encoding.trim().toLowerCase() !== 'identity') throw errors.unsupportedMediaType();
      const contentType = request.headers['content-type'];
      if (contentType !== undefined && !isAcceptableContentType(contentType)) throw errors.unsupportedMediaType();
    });

    app.addHook('onSend', async (request, reply, payload) => {
      const hasBody = payload !== undefined && payload !== null && payload !== '';
      if (hasBody && !request.routeOptions.config?.ownMediaType) reply.header('content-type', JSONAPI);
      return payload;
    });
  },
  { name: 'media-types' },
);
