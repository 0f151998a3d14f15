/**
 * The catalogue of every error the service answers with. Each is defined once here, with its
 * status and title; code elsewhere names an entry instead of building an error object itself,
 * so the same condition always reads the same to a client.
 */

export interface ErrorSource {
  pointer?: string;
  parameter?: string;
  header?: string;
}

/** A JSON:API error object. */
export interface ErrorObject {
  status: string;
  title: string;
  detail?: string;
  source?: ErrorSource;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly errors: ErrorObject[],
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(errors.map((e) => e.detail ?? e.title).join('; '));
    this.name = 'ApiError';
  }
}

/** One field-level problem found by a schema or a domain rule. */
export interface Problem {
  pointer: string;
  detail: string;
}

function single(status: number, title: string, detail?: string, source?: ErrorSource): ApiError {
  const error: ErrorObject = { status: String(status), title };
  if (detail !== undefined) error.detail = detail;
  if (source !== undefined) error.source = source;
  return new ApiError(status, [error]);
}

export const INVALID_ATTRIBUTE = 'Invalid Attribute';

export const errors = {
  problemsParsingJson: (detail = 'The request body is not valid JSON.') => single(400, 'Problems parsing JSON', detail),

  bodyMustBeObject: (detail = 'The request body must be a JSON object (a JSON:API document).') =>
    single(400, 'Body must be a JSON object', detail),

  invalidQueryParameter: (parameter: string, detail: string) =>
    single(400, 'Invalid Query Parameter', detail, { parameter }),

  invalidHeader: (header: string, detail: string) => single(400, 'Invalid Header', detail, { header }),

  badRequest: (detail: string) => single(400, 'Bad Request', detail),

  /** 422 with one error per problem, as the interface's section 7 lays out. */
  invalidAttributes: (problems: readonly Problem[]) =>
    new ApiError(
      422,
      problems.map((p) => ({
        status: '422',
        title: INVALID_ATTRIBUTE,
        detail: p.detail,
        source: { pointer: p.pointer },
      })),
    ),

  emailTaken: () => errors.invalidAttributes([{ pointer: '/data/attributes/email', detail: 'has already been taken' }]),

  unauthorized: (detail: string) => {
    const error = single(401, 'Unauthorized', detail, { header: 'Authorization' });
    return new ApiError(401, error.errors, {
      'www-authenticate': 'Bearer realm="circulation", Basic realm="circulation", charset="UTF-8"',
    });
  },

  forbidden: (detail: string) => single(403, 'Forbidden', detail),

  tooManyRequests: (retryAfterSeconds: number) => {
    const error = single(
      429,
      'Too Many Requests',
      `This credential has used up its request rate; retry in ${retryAfterSeconds} s.`,
    );
    return new ApiError(429, error.errors, { 'retry-after': String(retryAfterSeconds) });
  },

  uriTooLong: (limit: number) => single(414, 'URI Too Long', `The address is longer than ${limit} characters.`),

  clientGeneratedId: () =>
    single(403, 'Forbidden', 'Client-generated ids are not supported; leave out data.id.', {
      pointer: '/data/id',
    }),

  notFound: (detail: string) => single(404, 'Not Found', detail),

  routeNotFound: (method: string, path: string) => single(404, 'Not Found', `There is no route ${method} ${path}.`),

  methodNotAllowed: (method: string, allowed: readonly string[]) => {
    const error = single(405, 'Method Not Allowed', `${method} is not allowed here; use ${allowed.join(', ')}.`);
    return new ApiError(error.status, error.errors, { allow: allowed.join(', ') });
  },

  notAcceptable: () =>
    single(
      406,
      'Not Acceptable',
      'The Accept header must allow application/vnd.api+json without media type parameters (or application/json).',
      { header: 'Accept' },
    ),

  typeConflict: (expected: string) =>
    single(409, 'Conflict', `type must be ${expected} at this endpoint`, { pointer: '/data/type' }),

  idConflict: () => single(409, 'Conflict', 'data.id does not match the id in the address', { pointer: '/data/id' }),

  idempotencyInProgress: () =>
    single(409, 'Conflict', 'A request with this Idempotency-Key is still running; retry it shortly.', {
      header: 'Idempotency-Key',
    }),

  idempotencyKeyReused: () =>
    single(422, 'Idempotency Key Reused', 'This Idempotency-Key was used for a different request.', {
      header: 'Idempotency-Key',
    }),

  preconditionFailed: () =>
    single(412, 'Precondition Failed', 'The resource has changed since the ETag in If-Match; read it again.', {
      header: 'If-Match',
    }),

  payloadTooLarge: (limitBytes: number) =>
    single(413, 'Payload Too Large', `The request body is larger than ${limitBytes} bytes.`),

  unsupportedMediaType: () =>
    single(
      415,
      'Unsupported Media Type',
      'Send the body as application/vnd.api+json without media type parameters (application/json is accepted too).',
      { header: 'Content-Type' },
    ),

  storeUnavailable: () => {
    const error = single(503, 'Service Unavailable', 'The database is not answering; retry shortly.');
    return new ApiError(503, error.errors, { 'retry-after': '1' });
  },

  webhooksNotSetUp: () =>
    single(
      503,
      'Service Unavailable',
      'Webhooks need WEBHOOK_SECRET_KEY, the same on every process of the service; see the README.',
    ),

  shuttingDown: () => {
    const error = single(503, 'Service Unavailable', 'This process is shutting down; retry.');
    return new ApiError(503, error.errors, { 'retry-after': '1', connection: 'close' });
  },

  internal: (requestId: string) =>
    single(500, 'Internal Server Error', `Something went wrong on our side. Request id: ${requestId}.`),
} as const;
