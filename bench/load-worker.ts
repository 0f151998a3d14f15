/**
 * The load generator, run in a process of its own: autocannon with a fixed number of
 * connections for a fixed time, cycling through the scenario's requests.
 *
 * Usage: load-worker.ts <spec.json>; prints autocannon's result as JSON.
 */
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';

export interface LoadRequest {
  method: string;
  path: string;
  body?: string;
  /** Headers of this request beyond the scenario's own (If-None-Match, Accept-Encoding). */
  headers?: Record<string, string>;
}

export interface LoadSpec {
  url: string;
  headers: Record<string, string>;
  requests: LoadRequest[];
  connections: number;
  durationSeconds: number;
}

const spec = JSON.parse(readFileSync(process.argv[2] as string, 'utf8')) as LoadSpec;
let next = 0;
const result = await autocannon({
  url: spec.url,
  connections: spec.connections,
  duration: spec.durationSeconds,
  headers: spec.headers,
  requests: [
    {
      setupRequest: (request) => {
        const chosen = spec.requests[next++ % spec.requests.length] as LoadRequest;
        // Fresh headers each time: autocannon writes Content-Length into the object it is given,
        // which would otherwise stay on the next request, a GET without a body.
        return {
          ...request,
          method: chosen.method as typeof request.method,
          path: chosen.path,
          body: chosen.body,
          headers: { ...spec.headers, ...chosen.headers },
        };
      },
    },
  ],
});
process.stdout.write(
  JSON.stringify({
    requestsPerSecond: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    total: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
  }),
);
