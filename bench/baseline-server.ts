/**
 * The baseline: a bare node:http server that answers every request with the exact bytes the
 * service gave for the scenario (status, content type, body). Whatever the service does beyond
 * that costs throughput; this is the most the runtime can do on this machine for that response.
 *
 * Usage: baseline-server.ts <response.json>; prints the port it listens on and its process id
 * (tsx runs it in a process of its own, whose CPU time the benchmark reads).
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';

const { status, headers, body } = JSON.parse(readFileSync(process.argv[2] as string, 'utf8')) as {
  status: number;
  headers: Record<string, string>;
  body: string;
};
const bytes = Buffer.from(body, 'base64');
const server = createServer((request, response) => {
  // Read the request body like the service must before it answers.
  request.resume();
  request.on('end', () => {
    response.writeHead(status, { ...headers, 'content-length': bytes.length });
    response.end(bytes);
  });
});
server.keepAliveTimeout = 72_000;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${(server.address() as { port: number }).port} ${process.pid}\n`);
});
