/**
 * Hands over every answer a Node HTTP server writes, as its last bytes are about to leave: the
 * request's method and path, the status, the headers as sent (those set on the response and those
 * given to writeHead) and the body's bytes as written (still encoded, as Content-Encoding says).
 *
 * Plain JavaScript, so that a service started as its own process can load it with `--import`
 * without a TypeScript loader (test/support/answer-recorder.mjs); the in-process tests' contract
 * tap uses it too.
 *
 * @param {import('node:http').Server} server
 * @param {(answer: import('./answer-capture.mjs').WrittenAnswer) => void} record
 */
export function captureAnswers(server, record) {
  server.prependListener('request', (request, response) => watch(request, response, record));
}

function watch(request, response, record) {
  const chunks = [];
  const given = {};
  const keep = (chunk, encoding) => {
    if (typeof chunk === 'string') chunks.push(Buffer.from(chunk, encoding ?? 'utf8'));
    else if (chunk instanceof Uint8Array) chunks.push(Buffer.from(chunk));
  };
  const { writeHead, write, end } = response;
  response.writeHead = function (...args) {
    const headers = args.find((a, i) => i > 0 && typeof a === 'object' && a !== null);
    const pairs = Array.isArray(headers)
      ? headers.flatMap((value, i) => (i % 2 === 0 ? [[String(value), headers[i + 1]]] : []))
      : Object.entries(headers ?? {});
    for (const [name, value] of pairs) given[name.toLowerCase()] = String(value);
    return writeHead.apply(this, args);
  };
  response.write = function (chunk, ...rest) {
    keep(chunk, typeof rest[0] === 'string' ? rest[0] : undefined);
    return write.apply(this, [chunk, ...rest]);
  };
  response.end = function (chunk, ...rest) {
    if (typeof chunk !== 'function') keep(chunk, typeof rest[0] === 'string' ? rest[0] : undefined);
    const headers = {};
    for (const [name, value] of Object.entries(response.getHeaders())) {
      if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : String(value);
    }
    Object.assign(headers, given);
    record({
      method: request.method ?? 'GET',
      url: request.url ?? '/',
      status: response.statusCode,
      headers,
      body: Buffer.concat(chunks),
    });
    return end.apply(this, [chunk, ...rest]);
  };
}
