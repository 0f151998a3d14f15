// A webhook endpoint for circulation's events, with nothing but Node.js (20 or newer).
// WEBHOOK_SECRET=whsec_… PORT=4000 node examples/webhook-receiver.mjs
// It checks each message's Standard Webhooks signature and age, skips a message it has seen
// (delivery is at least once: a retry can repeat one), and prints each event as a line.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';

const key = Buffer.from(process.env.WEBHOOK_SECRET.replace(/^whsec_/, ''), 'base64');
const seen = new Set(); // keep these in your database, to survive a restart

function verified(headers, body) {
  const id = headers['webhook-id'];
  const timestamp = Number(headers['webhook-timestamp']);
  if (!id || !(Math.abs(Date.now() / 1000 - timestamp) < 300)) return false; // a replay, or a stale clock
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest();
  return String(headers['webhook-signature'] ?? '')
    .split(' ')
    .some((candidate) => {
      const [version, signature] = candidate.split(',');
      const given = Buffer.from(signature ?? '', 'base64');
      return version === 'v1' && given.length === expected.length && timingSafeEqual(given, expected);
    });
}

const server = createServer((request, response) => {
  let body = '';
  request.setEncoding('utf8');
  request.on('data', (chunk) => (body += chunk));
  request.on('end', () => {
    if (!verified(request.headers, body)) {
      response.writeHead(401).end();
      return;
    }
    const id = request.headers['webhook-id'];
    if (!seen.has(id)) {
      seen.add(id);
      const { type, data } = JSON.parse(body);
      // Do the work here; answer 2xx only once it is done (or safely queued): anything else is retried.
      console.log(
        `${id} ${type} user ${data.attributes.userId} ${data.attributes.resourceType}/${data.attributes.resourceId}`,
      );
    }
    response.writeHead(204).end();
  });
});
server.listen(Number(process.env.PORT ?? 4000), '127.0.0.1', () =>
  console.log(`listening on http://127.0.0.1:${server.address().port}/`),
);
