/**
 * The response headers a client reads, each described once (the OpenAPI document lists them under
 * components.headers and refers to them), and which of them a route's answer carries: a route
 * marks the response schema of a status with the headers it sets itself (`withHeaders`); those
 * every route may set (rate limits, Retry-After, Allow) are added by the openapi plugin.
 */
import type { TSchema } from '@sinclair/typebox';

const text = { type: 'string' } as const;
const seconds = { type: 'integer', minimum: 0 } as const;

export const RESPONSE_HEADERS = {
  Location: { description: 'The absolute address of the resource.', schema: { type: 'string', format: 'uri' } },
  ETag: {
    description:
      "The resource's version, a strong ETag: send it in If-Match to write only over it, in If-None-Match to read only a change.",
    schema: text,
  },
  'RateLimit-Limit': { description: 'With a credential: the requests its bucket holds.', schema: seconds },
  'RateLimit-Remaining': { description: 'With a credential: the requests left in its bucket.', schema: seconds },
  'RateLimit-Reset': { description: 'With a credential: seconds until its bucket is full again.', schema: seconds },
  RateLimit: {
    description: 'With a credential: the bucket as draft-ietf-httpapi-ratelimit-headers writes it ("burst";r=…;t=…).',
    schema: text,
  },
  'RateLimit-Policy': {
    description: 'With a credential: its sustained rate and burst ("rate";q=…;w=1, "burst";q=…).',
    schema: text,
  },
  'Retry-After': { description: 'Seconds to wait before trying again.', schema: seconds },
  Allow: { description: 'The methods the path answers.', schema: text },
  'WWW-Authenticate': { description: 'The schemes a credential may be presented in.', schema: text },
  'Set-Cookie': {
    description:
      'The console session cookie (HttpOnly, SameSite=Strict; Secure and __Host- over https); cleared on sign-out.',
    schema: text,
  },
  'X-Request-Id': {
    description:
      "The request's id, which the service's logs carry: the request's own X-Request-Id when it is a sane token, else a new UUID.",
    schema: text,
  },
} as const;

export type ResponseHeader = keyof typeof RESPONSE_HEADERS;

export const RATE_LIMIT_HEADERS: readonly ResponseHeader[] = [
  'RateLimit-Limit',
  'RateLimit-Remaining',
  'RateLimit-Reset',
  'RateLimit',
  'RateLimit-Policy',
];

const declared = new WeakMap<object, readonly ResponseHeader[]>();

/** The response schema `schema`, marked as an answer that carries `headers`. */
export function withHeaders<T extends TSchema>(schema: T, ...headers: ResponseHeader[]): T {
  const marked = { ...schema };
  declared.set(marked, headers);
  return marked;
}

/** The headers a route marked its answer of this schema with. */
export function headersOf(schema: unknown): readonly ResponseHeader[] {
  return (typeof schema === 'object' && schema !== null && declared.get(schema)) || [];
}
