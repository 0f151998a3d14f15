/**
 * One request through node:http, for tests that stop and kill processes under load: it never
 * rejects, and says what the request came to, an answer or the error that ended it.
 */
import { type Agent, request as httpRequest } from 'node:http';
import { MEDIA_TYPE, TEST_ADMIN_KEY } from './service.js';

export interface Outcome {
  status?: number;
  /** The Connection header of the answer. */
  connection?: string;
  body?: string;
  /** The code (ECONNRESET, ECONNREFUSED, …) of the error that ended the request without an answer. */
  error?: string;
}

/** Sends a request as the test admin, on `agent` (false: a connection of its own). */
export function send(
  baseUrl: string,
  method: string,
  path: string,
  options: { body?: unknown; agent?: Agent | false; timeoutMs?: number } = {},
): Promise<Outcome> {
  return new Promise((resolve) => {
    const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
    const request = httpRequest(
      `${baseUrl}${path}`,
      {
        method,
        agent: options.agent ?? false,
        ...(options.timeoutMs === undefined ? {} : { timeout: options.timeoutMs }),
        headers: {
          accept: MEDIA_TYPE,
          authorization: `Bearer ${TEST_ADMIN_KEY}`,
          ...(payload === undefined ? {} : { 'content-type': MEDIA_TYPE }),
        },
      },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, connection: String(response.headers.connection), body: text }),
        );
        response.on('error', (error: NodeJS.ErrnoException) => resolve({ error: error.code ?? error.message }));
      },
    );
    request.on('timeout', () => request.destroy(Object.assign(new Error('timeout'), { code: 'ETIMEDOUT' })));
    request.on('error', (error: NodeJS.ErrnoException) => resolve({ error: error.code ?? error.message }));
    request.end(payload);
  });
}
