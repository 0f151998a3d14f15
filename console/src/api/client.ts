/**
 * The console's one way to the service: an openapi-fetch client typed by the service's own
 * OpenAPI document (schema.d.ts, written by `npm run typecheck`), so that a route whose schema
 * changes under the console fails the typecheck. The browser sends the session cookie itself;
 * every change also carries the session's CSRF token.
 */
import createClient, { type Middleware } from 'openapi-fetch';
import type { components, paths } from './schema';

export type { components, paths };

let csrfToken: string | undefined;

/** The token of the session signed in (or found live), for every change from now on. */
export function useCsrfToken(token: string | undefined): void {
  csrfToken = token;
}

const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Dispatched on window when the service no longer takes the session (signed out elsewhere, disabled, idle). */
export const SESSION_ENDED = 'circulation:session-ended';

const csrf: Middleware = {
  onRequest({ request }) {
    if (!SAFE.has(request.method) && csrfToken) request.headers.set('x-csrf-token', csrfToken);
    return request;
  },
  onResponse({ response }) {
    if (response.status === 401 && csrfToken) {
      csrfToken = undefined;
      dispatchEvent(new Event(SESSION_ENDED));
    }
    return response;
  },
};

export const api = createClient<paths>({
  baseUrl: '',
  headers: { accept: 'application/vnd.api+json' },
  credentials: 'same-origin',
});
api.use(csrf);

/** A JSON:API error as the service answers it. */
export interface ApiError {
  status: string;
  code: string;
  title: string;
  detail?: string;
  source?: { pointer?: string; parameter?: string; header?: string };
}

/** The errors of a failed answer (an empty list when it had none). */
export function errorsOf(error: unknown): ApiError[] {
  const list = (error as { errors?: unknown } | undefined)?.errors;
  return Array.isArray(list) ? (list as ApiError[]) : [];
}

/** One line saying what went wrong, for a message beside a form. */
export function describe(error: unknown, status: number): string {
  const found = errorsOf(error);
  if (found.length === 0) return `The service answered ${status}.`;
  return found.map((e) => e.detail ?? e.title).join(' ');
}
