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
function refusedParams(range: MediaRange): string[] {
  return [...range.params.keys()].filter((name) => name !== 'profile');
}

const SEND_INSTEAD = `send exactly ${JSONAPI} (or application/json; charset=utf-8)`;

/**
 * Why a Content-Type is refused, or undefined when it is accepted. Many HTTP clients add a
 * charset of their own; JSON:API forbids it on its media type, so the answer says so and what to send.
 */
export function contentTypeProblem(header: string): string | undefined {
  const range = parseMediaRange(header);
  if (range.type === JSONAPI) {
    const refused = refusedParams(range);
    if (refused.length === 0) return undefined;
    return `${JSONAPI} takes no media type parameters but profile, and this one has ${quoted(refused)}: ${SEND_INSTEAD}.`;
  }
  if (range.type === 'application/json') {
    const charset = range.params.get('charset');
    if (charset === undefined || charset.replace(/"/g, '').toLowerCase() === 'utf-8') return undefined;
    return `application/json is accepted only in UTF-8, not in charset ${charset}: ${SEND_INSTEAD}.`;
  }
  return `${range.type || 'an empty media type'} is not JSON: ${SEND_INSTEAD}.`;
}

/** Why an Accept header is refused, or undefined when it allows an answer the service gives. */
export function acceptProblem(header: string | undefined): string | undefined {
  if (header === undefined || header.trim() === '') return undefined;
  const ranges = header.split(',').map(parseMediaRange);
  const jsonapi = ranges.filter((r) => r.type === JSONAPI);
  if (jsonapi.some((r) => refusedParams(r).length === 0)) return undefined;
  // A client that names JSON:API only with parameters we cannot honour must get a 406.
  if (jsonapi.length > 0) {
    const refused = [...new Set(jsonapi.flatMap(refusedParams))];
    return `${JSONAPI} is answered only without media type parameters (but profile), and Accept names it with ${quoted(refused)}: accept ${JSONAPI} exactly.`;
  }
  if (ranges.some((r) => ['application/json', 'application/*', '*/*'].includes(r.type))) return undefined;
  return `The service answers only in ${JSONAPI}, which Accept does not allow.`;
}

function quoted(names: readonly string[]): string {
  return names.map((name) => `"${name}"`).join(', ');
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

    // Hooks that await nothing take a callback: an async one costs a promise on every request.
    app.addHook('onRequest', (request, _reply, done) => {
      if (request.routeOptions.config?.ownMediaType) return done();
      const unacceptable = acceptProblem(request.headers.accept);
      if (unacceptable !== undefined) return done(errors.notAcceptable(unacceptable));
      const encoding = request.headers['content-encoding'];
      if (encoding !== undefined && encoding.trim().toLowerCase() !== 'identity') {
        return done(errors.unsupportedMediaType('Bodies are accepted only without a Content-Encoding (identity).'));
      }
      const contentType = request.headers['content-type'];
      const unsupported = contentType === undefined ? undefined : contentTypeProblem(contentType);
      done(unsupported === undefined ? undefined : errors.unsupportedMediaType(unsupported));
    });

    app.addHook('onSend', (request, reply, payload, done) => {
      const hasBody = payload !== undefined && payload !== null && payload !== '';
      // A route of its own media type still answers its errors as JSON:API documents, but for the
      // pages it answers them with itself (a reader's link that does not work: reader-pages.ts).
      const ownAnswer =
        request.routeOptions.config?.ownMediaType &&
        (reply.statusCode < 400 || String(reply.getHeader('content-type')).startsWith('text/html'));
      if (hasBody && !ownAnswer) reply.header('content-type', JSONAPI);
      done(null, payload);
    });
  },
  { name: 'media-types' },
);
