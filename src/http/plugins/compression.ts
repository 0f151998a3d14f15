/**
 * Response compression: a body of at least COMPRESSION_MIN_BYTES goes out in brotli or gzip when
 * the client's Accept-Encoding allows one (a list page of 100 users shrinks to a small part of its
 * size). Smaller bodies go as they are: compressing them costs more than the bytes it saves.
 * Every response with a body says `Vary: Accept-Encoding`, since any of them could be compressed.
 *
 * Compression runs on the event loop, bounded by the largest body the service renders (a page of
 * 100 records); brotli at quality 4 compresses about as fast as gzip and better.
 */
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import fp from 'fastify-plugin';

export const COMPRESSION_MIN_BYTES = 1024;

type Coding = 'br' | 'gzip';
/** In order of preference when the client weighs them alike. */
const CODINGS: readonly Coding[] = ['br', 'gzip'];

const BROTLI_OPTIONS = {
  params: { [constants.BROTLI_PARAM_QUALITY]: 4, [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT },
};

const compress: Record<Coding, (body: Buffer | string) => Buffer> = {
  br: (body) => brotliCompressSync(body, BROTLI_OPTIONS),
  gzip: (body) => gzipSync(body),
};

/**
 * The coding an Accept-Encoding header prefers among those the service has, or undefined for
 * none (RFC 9110, 12.5.3): the highest q wins, `q=0` refuses a coding, `*` stands for every
 * coding the header does not name, and `x-gzip` is gzip.
 */
export function preferredCoding(header: string | undefined): Coding | undefined {
  if (!header) return undefined;
  const weights = new Map<string, number>();
  for (const part of header.split(',', 32)) {
    const [name = '', ...params] = part.split(';');
    const coding = name.trim().toLowerCase();
    if (coding === '') continue;
    const q = params.map((p) => /^\s*q\s*=\s*([01](?:\.\d{0,3})?)\s*$/i.exec(p)?.[1]).find((v) => v !== undefined);
    weights.set(coding === 'x-gzip' ? 'gzip' : coding, q === undefined ? 1 : Number(q));
  }
  let best: Coding | undefined;
  let bestWeight = 0;
  for (const coding of CODINGS) {
    const weight = weights.get(coding) ?? weights.get('*') ?? 0;
    if (weight > bestWeight) [best, bestWeight] = [coding, weight];
  }
  return best;
}

/** The body to send and its coding: compressed when it is large enough and the client takes a coding. */
export function encodedBody(
  acceptEncoding: string | undefined,
  body: string | Buffer,
): { coding: Coding; body: Buffer } | undefined {
  const size = typeof body === 'string' ? Buffer.byteLength(body) : body.length;
  if (size < COMPRESSION_MIN_BYTES) return undefined;
  const coding = preferredCoding(acceptEncoding);
  return coding === undefined ? undefined : { coding, body: compress[coding](body) };
}

/** Compresses what the hooks before it have made of the body; registered after every other onSend hook. */
export const compression = fp(
  async (app) => {
    // It awaits nothing, so it takes a callback: an async hook costs a promise on every request.
    app.addHook('onSend', (request, reply, payload, done) => {
      if (typeof payload !== 'string' && !Buffer.isBuffer(payload)) return done(null, payload);
      if (payload.length === 0) return done(null, payload);
      reply.header('vary', 'accept-encoding');
      // HEAD describes the identity body: compressing one that is never sent costs for nothing.
      if (request.method === 'HEAD') return done(null, payload);
      const encoded = encodedBody(request.headers['accept-encoding'], payload);
      if (!encoded) return done(null, payload);
      reply.header('content-encoding', encoded.coding);
      done(null, encoded.body);
    });
  },
  { name: 'compression' },
);
