/**
 * The catalogue of every error the service answers with. Each has a stable `code` (JSON:API's
 * error member) that clients switch on, and a status and title; code elsewhere names an entry
 * instead of building an error object itself, so the same condition always reads the same.
 * Entries are grouped by where they arise, as Fastify groups its own codes.
 */
import { DomainFailure, type FailureCode, type Problem } from '../domain/failures.js';

interface Entry {
  status: number;
  title: string;
}

export const CATALOGUE = {
  // The request as HTTP: framing, address, headers, media types.
  MALFORMED_REQUEST: { status: 400, title: 'Bad Request' },
  REQUEST_TIMEOUT: { status: 408, title: 'Request Timeout' },
  HEADERS_TOO_LARGE: { status: 431, title: 'Request Header Fields Too Large' },
  INVALID_URL: { status: 400, title: 'Bad Request' },
  URI_TOO_LONG: { status: 414, title: 'URI Too Long' },
  ROUTE_NOT_FOUND: { status: 404, title: 'Not Found' },
  METHOD_NOT_ALLOWED: { status: 405, title: 'Method Not Allowed' },
  INVALID_HEADER: { status: 400, title: 'Invalid Header' },
  INVALID_QUERY_PARAMETER: { status: 400, title: 'Invalid Query Parameter' },
  /** A page by number deeper than an offset may go: follow links.next (page[after]) instead. */
  PAGE_TOO_DEEP: { status: 400, title: 'Invalid Query Parameter' },
  /** A page by number of a list whose pages may stop short: follow links.next instead. */
  PAGE_TOO_SPARSE: { status: 400, title: 'Invalid Query Parameter' },
  NOT_ACCEPTABLE: { status: 406, title: 'Not Acceptable' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, title: 'Unsupported Media Type' },
  PAYLOAD_TOO_LARGE: { status: 413, title: 'Payload Too Large' },
  /** Any other request the framework refuses; it carries the framework's 4xx status. */
  REQUEST_REFUSED: { status: 400, title: 'Bad Request' },

  // The document a request sends.
  INVALID_JSON: { status: 400, title: 'Problems parsing JSON' },
  BODY_NOT_OBJECT: { status: 400, title: 'Body must be a JSON object' },
  DOCUMENT_WITHOUT_DATA: { status: 422, title: 'Invalid Document' },
  INVALID_ATTRIBUTE: { status: 422, title: 'Invalid Attribute' },
  EMAIL_TAKEN: { status: 422, title: 'Invalid Attribute' },
  CLIENT_ID_NOT_SUPPORTED: { status: 403, title: 'Forbidden' },
  TYPE_CONFLICT: { status: 409, title: 'Conflict' },
  ID_CONFLICT: { status: 409, title: 'Conflict' },

  // Records.
  RECORD_NOT_FOUND: { status: 404, title: 'Not Found' },
  PRECONDITION_FAILED: { status: 412, title: 'Precondition Failed' },
  ID_TAKEN: { status: 409, title: 'Conflict' },
  STILL_REFERENCED: { status: 409, title: 'Conflict' },
  UNKNOWN_REFERENCE: { status: 422, title: 'Unknown Reference' },
  INACTIVE_REFERENCE: { status: 422, title: 'Inactive Reference' },

  // Print circulation: cut-offs, holds, temporary addresses, complaints.
  PAST_CUTOFF: { status: 422, title: 'Past Cut-off' },
  NOT_PRINT: { status: 422, title: 'Not Delivered' },
  HOLD_OVERLAP: { status: 409, title: 'Conflict' },
  HOLD_ALLOWANCE_EXCEEDED: { status: 422, title: 'Hold Allowance Exceeded' },
  ALREADY_STARTED: { status: 409, title: 'Conflict' },
  HOLD_WITHDRAWN: { status: 409, title: 'Conflict' },
  TEMPORARY_ADDRESS_OVERLAP: { status: 409, title: 'Conflict' },
  NOT_A_DELIVERY: { status: 422, title: 'Invalid Attribute' },
  COMPLAINT_EXISTS: { status: 409, title: 'Conflict' },

  // Newsletter consent.
  CONSENT_SUPPRESSED: { status: 422, title: 'Consent Suppressed' },
  /** A confirmation link for a consent that has nothing to confirm (subscribed, unsubscribed). */
  CONSENT_NOT_CONFIRMABLE: { status: 409, title: 'Conflict' },

  // Seats of site licences.
  NO_SEATS: { status: 422, title: 'No Seats' },
  SEATS_EXHAUSTED: { status: 422, title: 'Seats Exhausted' },
  SEAT_TAKEN: { status: 409, title: 'Conflict' },
  SEATS_GIVEN: { status: 422, title: 'Invalid Attribute' },

  // Credentials and limits.
  CREDENTIAL_REQUIRED: { status: 401, title: 'Unauthorized' },
  CREDENTIAL_INVALID: { status: 401, title: 'Unauthorized' },
  SCOPE_INSUFFICIENT: { status: 403, title: 'Forbidden' },
  ADMIN_ONLY_ATTRIBUTE: { status: 403, title: 'Forbidden' },
  RATE_LIMITED: { status: 429, title: 'Too Many Requests' },

  // Readers signing in and resetting their passwords.
  INVALID_CREDENTIALS: { status: 422, title: 'Invalid credentials' },
  SIGN_IN_THROTTLED: { status: 429, title: 'Too Many Requests' },
  RESET_TOKEN_INVALID: { status: 422, title: 'Invalid Attribute' },
  /** A reset token asked for in the answer by a credential that may only have it mailed, or none. */
  RESET_TOKEN_WITHHELD: { status: 403, title: 'Forbidden' },

  // Staff in the console.
  SESSION_INVALID: { status: 401, title: 'Unauthorized' },
  CSRF_REFUSED: { status: 403, title: 'Forbidden' },
  STAFF_SIGN_INS_FROM_NETWORK: { status: 429, title: 'Too Many Requests' },
  STAFF_SIGN_INS_BUSY: { status: 503, title: 'Service Unavailable' },

  // Safe retries.
  IDEMPOTENCY_IN_PROGRESS: { status: 409, title: 'Conflict' },
  IDEMPOTENCY_KEY_REUSED: { status: 422, title: 'Idempotency Key Reused' },

  // The service itself.
  STORE_UNAVAILABLE: { status: 503, title: 'Service Unavailable' },
  SHUTTING_DOWN: { status: 503, title: 'Service Unavailable' },
  DEADLINE_EXCEEDED: { status: 503, title: 'Service Unavailable' },
  WEBHOOKS_NOT_CONFIGURED: { status: 503, title: 'Service Unavailable' },
  IDEMPOTENCY_NOT_CONFIGURED: { status: 503, title: 'Service Unavailable' },
  LINKS_NOT_CONFIGURED: { status: 503, title: 'Service Unavailable' },
  MAIL_NOT_CONFIGURED: { status: 503, title: 'Service Unavailable' },
  /** The mail server did not take a message; what the request made for it was undone. */
  MAIL_UNAVAILABLE: { status: 503, title: 'Service Unavailable' },
  INTERNAL_ERROR: { status: 500, title: 'Internal Server Error' },
} as const satisfies Record<string, Entry> & Record<FailureCode, Entry>;

export type ErrorCode = keyof typeof CATALOGUE;
export const ERROR_CODES = Object.keys(CATALOGUE) as ErrorCode[];

export interface ErrorSource {
  pointer?: string;
  parameter?: string;
  header?: string;
}

/** A JSON:API error object. */
export interface ErrorObject {
  status: string;
  code: ErrorCode;
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

/** One error object of the catalogue's entry `code`. */
function errorObject(code: ErrorCode, detail?: string, source?: ErrorSource, status?: number): ErrorObject {
  const entry: Entry = CATALOGUE[code];
  const error: ErrorObject = { status: String(status ?? entry.status), code, title: entry.title };
  if (detail !== undefined) error.detail = detail;
  if (source !== undefined) error.source = source;
  return error;
}

function single(code: ErrorCode, detail?: string, source?: ErrorSource, headers?: Record<string, string>): ApiError {
  return new ApiError(CATALOGUE[code].status, [errorObject(code, detail, source)], headers);
}

/** One error per problem (a 422, as the interface's section 7 lays out, or a 409 for a taken id). */
function problems(code: ErrorCode, list: readonly Problem[]): ApiError {
  return new ApiError(
    CATALOGUE[code].status,
    list.map((p) => errorObject(code, p.detail, { pointer: p.pointer })),
  );
}

/** What a 401 answers with: the schemes a credential may come in. */
const CHALLENGE = { 'www-authenticate': 'Bearer realm="circulation", Basic realm="circulation", charset="UTF-8"' };

export const errors = {
  // The request as HTTP.
  malformedRequest: (status: 400 | 408 | 431) =>
    single(
      status === 408 ? 'REQUEST_TIMEOUT' : status === 431 ? 'HEADERS_TOO_LARGE' : 'MALFORMED_REQUEST',
      'The request is not well-formed HTTP.',
    ),
  invalidUrl: () => single('INVALID_URL', 'The address is not a valid URL.'),
  uriTooLong: (limit: number) => single('URI_TOO_LONG', `The address is longer than ${limit} characters.`),
  routeNotFound: (method: string, path: string) => single('ROUTE_NOT_FOUND', `There is no route ${method} ${path}.`),
  methodNotAllowed: (method: string, allowed: readonly string[]) =>
    single('METHOD_NOT_ALLOWED', `${method} is not allowed here; use ${allowed.join(', ')}.`, undefined, {
      allow: allowed.join(', '),
    }),
  invalidHeader: (header: string, detail: string) => single('INVALID_HEADER', detail, { header }),
  invalidQueryParameter: (parameter: string, detail: string) =>
    single('INVALID_QUERY_PARAMETER', detail, { parameter }),
  pageTooDeep: (parameter: string, maxOffset: number) =>
    single(
      'PAGE_TOO_DEEP',
      `Pages beyond the first ${maxOffset} items are not reached by number: follow links.next, whose page[after] ` +
        'makes any page as quick as the first.',
      { parameter },
    ),
  pageTooSparse: (parameter: string) =>
    single(
      'PAGE_TOO_SPARSE',
      'A page of this list may stop short before its end, where it has read as far as one request reads, so ' +
        'where a page by number starts is not known: start at the first page and follow links.next.',
      { parameter },
    ),
  notAcceptable: (detail: string) => single('NOT_ACCEPTABLE', detail, { header: 'Accept' }),
  unsupportedMediaType: (
    detail = 'Send the body as application/vnd.api+json without media type parameters (application/json is accepted too).',
  ) => single('UNSUPPORTED_MEDIA_TYPE', detail, { header: 'Content-Type' }),
  payloadTooLarge: (limitBytes: number) =>
    single('PAYLOAD_TOO_LARGE', `The request body is larger than ${limitBytes} bytes.`),
  requestRefused: (status: number, title: string, detail: string) =>
    new ApiError(status, [{ ...errorObject('REQUEST_REFUSED', detail, undefined, status), title }]),

  // The document a request sends.
  problemsParsingJson: (detail = 'The request body is not valid JSON.') => single('INVALID_JSON', detail),
  bodyMustBeObject: (detail = 'The request body must be a JSON object (a JSON:API document).') =>
    single('BODY_NOT_OBJECT', detail),
  documentWithoutData: (type: string) =>
    single(
      'DOCUMENT_WITHOUT_DATA',
      `The document has no data member: send the resource as {"data": {"type": "${type}", "attributes": {…}}}.`,
      { pointer: '/data' },
    ),
  invalidAttributes: (list: readonly Problem[]) => problems('INVALID_ATTRIBUTE', list),
  clientGeneratedId: () =>
    single('CLIENT_ID_NOT_SUPPORTED', 'Client-generated ids are not supported; leave out data.id.', {
      pointer: '/data/id',
    }),
  typeConflict: (expected: string) =>
    single('TYPE_CONFLICT', `type must be ${expected} at this endpoint`, { pointer: '/data/type' }),
  idConflict: () => single('ID_CONFLICT', 'data.id does not match the id in the address', { pointer: '/data/id' }),

  // Records.
  notFound: (detail: string) => single('RECORD_NOT_FOUND', detail),
  preconditionFailed: () =>
    single('PRECONDITION_FAILED', 'The resource has changed since the ETag in If-Match; read it again.', {
      header: 'If-Match',
    }),

  // Newsletter consent.
  consentNotConfirmable: (newsletterId: string, state: string) =>
    single(
      'CONSENT_NOT_CONFIRMABLE',
      `The reader's consent for newsletter "${newsletterId}" is ${state}: only a pending, bounced or complained ` +
        'consent is confirmed by a link (one who left comes back by newsletters.add).',
    ),

  // Credentials and limits.
  credentialRequired: () =>
    single(
      'CREDENTIAL_REQUIRED',
      'This request needs a credential (Authorization: Bearer <secret>).',
      { header: 'Authorization' },
      CHALLENGE,
    ),
  credentialInvalid: () =>
    single(
      'CREDENTIAL_INVALID',
      'The credential is not valid, or has been revoked.',
      { header: 'Authorization' },
      CHALLENGE,
    ),
  scopeInsufficient: (has: readonly string[], needs: readonly string[]) =>
    single(
      'SCOPE_INSUFFICIENT',
      `This credential has the scopes ${has.join(', ')}; this request needs ${needs.join(' or ')}.`,
    ),
  adminOnlyAttribute: (attribute: string) =>
    single('ADMIN_ONLY_ATTRIBUTE', `${attribute} is accepted only from an admin credential.`, {
      pointer: `/data/attributes/${attribute}`,
    }),
  tooManyRequests: (retryAfterSeconds: number, of: 'credential' | 'address' = 'credential') =>
    single(
      'RATE_LIMITED',
      of === 'credential'
        ? `This credential has used up its request rate; retry in ${retryAfterSeconds} s.`
        : `Requests without a valid credential from this address have used up their rate; retry in ${retryAfterSeconds} s.`,
      undefined,
      { 'retry-after': String(retryAfterSeconds) },
    ),

  // Readers signing in and resetting their passwords. The first two read the same for every email.
  invalidCredentials: () => single('INVALID_CREDENTIALS', 'email or password is incorrect'),
  signInThrottled: (retryAfterSeconds: number) =>
    single(
      'SIGN_IN_THROTTLED',
      `Too many sign-in attempts for this email; retry in ${retryAfterSeconds} s.`,
      undefined,
      { 'retry-after': String(retryAfterSeconds) },
    ),
  resetTokenInvalid: () =>
    single('RESET_TOKEN_INVALID', 'is invalid, used or expired', { pointer: '/data/attributes/token' }),

  // Staff in the console.
  sessionInvalid: () =>
    single(
      'SESSION_INVALID',
      'The console session has ended (signed out, idle too long, past its lifetime, or the account disabled); sign in again.',
      { header: 'Cookie' },
    ),
  staffSignInsBusy: (full: 'network-full' | 'all-full') =>
    full === 'network-full'
      ? single(
          'STAFF_SIGN_INS_FROM_NETWORK',
          'As many console sign-ins from this network as are checked at once are being checked; retry in 1 s.',
          undefined,
          { 'retry-after': '1' },
        )
      : single(
          'STAFF_SIGN_INS_BUSY',
          'As many console sign-ins as are checked at once are being checked; retry in 1 s.',
          undefined,
          { 'retry-after': '1' },
        ),
  csrfRefused: () =>
    single(
      'CSRF_REFUSED',
      'A change made with a console session needs its X-CSRF-Token header, sent from the same origin.',
      { header: 'X-CSRF-Token' },
    ),

  // Safe retries.
  idempotencyInProgress: () =>
    single('IDEMPOTENCY_IN_PROGRESS', 'A request with this Idempotency-Key is still running; retry it shortly.', {
      header: 'Idempotency-Key',
    }),
  idempotencyKeyReused: () =>
    single('IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was used for a different request.', {
      header: 'Idempotency-Key',
    }),

  // The service itself.
  storeUnavailable: () =>
    single('STORE_UNAVAILABLE', 'The database is not answering; retry shortly.', undefined, { 'retry-after': '1' }),
  deadlineExceeded: () =>
    single(
      'DEADLINE_EXCEEDED',
      'The service is too busy to finish this request in time; nothing was changed. Retry shortly.',
      undefined,
      { 'retry-after': '1' },
    ),
  shuttingDown: () =>
    single('SHUTTING_DOWN', 'This process is shutting down; retry.', undefined, {
      'retry-after': '1',
      connection: 'close',
    }),
  webhooksNotSetUp: () =>
    single(
      'WEBHOOKS_NOT_CONFIGURED',
      'Webhooks need SERVICE_SECRET_KEY (or WEBHOOK_SECRET_KEY), the same on every process of the service; see docs/operating/settings.md.',
    ),
  idempotencyNotSetUp: () =>
    single(
      'IDEMPOTENCY_NOT_CONFIGURED',
      'Idempotency-Key needs SERVICE_SECRET_KEY (or WEBHOOK_SECRET_KEY), the same on every process of the service; see docs/operating/settings.md.',
      { header: 'Idempotency-Key' },
    ),
  linksNotSetUp: () =>
    single(
      'LINKS_NOT_CONFIGURED',
      "Readers' links need SERVICE_SECRET_KEY (or WEBHOOK_SECRET_KEY), the same on every process of the service; see docs/operating/settings.md.",
    ),
  resetTokenWithheld: (mailing: boolean) =>
    single(
      'RESET_TOKEN_WITHHELD',
      mailing
        ? 'A reset token is shown in the answer only to an admin credential while the service mails resets: ' +
            'send "delivery": "email" to mail the reader the link.'
        : 'A reset token is shown in the answer only to an admin credential or one with the reset-tokens scope; ' +
            'with SMTP_URL and PASSWORD_RESET_URL set, the service mails the reader the link ("delivery": "email"). ' +
            'See docs/integrating/signing-in.md.',
      { pointer: '/data/attributes/delivery' },
    ),
  mailNotSetUp: (missing: readonly string[]) =>
    single(
      'MAIL_NOT_CONFIGURED',
      `Mailing a password reset needs ${missing.join(' and ')} set on the service; see docs/integrating/signing-in.md. ` +
        'Leave out delivery to get the token in the answer instead.',
      { pointer: '/data/attributes/delivery' },
    ),
  mailUnavailable: (retryAfterSeconds: number) =>
    single(
      'MAIL_UNAVAILABLE',
      'The mail server did not take the message, after retries; the token issued for it was voided, so nothing ' +
        `was changed. Retry in ${retryAfterSeconds} s.`,
      undefined,
      { 'retry-after': String(retryAfterSeconds) },
    ),
  internal: (requestId: string) =>
    single('INTERNAL_ERROR', `Something went wrong on our side. Request id: ${requestId}.`),
} as const;

/** The catalogued answer to a failure of the domain or the store. */
export function fromFailure(failure: DomainFailure): ApiError {
  switch (failure.code) {
    case 'INVALID_ATTRIBUTE':
    case 'EMAIL_TAKEN':
    case 'ID_TAKEN':
    case 'UNKNOWN_REFERENCE':
    case 'INACTIVE_REFERENCE':
      return problems(failure.code, failure.problems);
    case 'PRECONDITION_FAILED':
      return errors.preconditionFailed();
    case 'PAST_CUTOFF':
    case 'HOLD_OVERLAP':
    case 'HOLD_ALLOWANCE_EXCEEDED':
    case 'TEMPORARY_ADDRESS_OVERLAP':
    case 'NOT_A_DELIVERY':
    case 'COMPLAINT_EXISTS':
    case 'CONSENT_SUPPRESSED':
    case 'SEAT_TAKEN':
    case 'SEATS_GIVEN':
      return problems(failure.code, failure.problems);
    case 'STILL_REFERENCED':
    case 'NOT_PRINT':
    case 'ALREADY_STARTED':
    case 'HOLD_WITHDRAWN':
    case 'NO_SEATS':
    case 'SEATS_EXHAUSTED':
      return single(failure.code, failure.detail);
  }
}
