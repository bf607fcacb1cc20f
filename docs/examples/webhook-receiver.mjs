// A Rail webhook receiver in plain Node (node:http + node:crypto, no dependencies).
//
//   RAIL_WEBHOOK_SECRET=whsec_... node docs/examples/webhook-receiver.mjs    # listens on 127.0.0.1:4242
//
// It verifies the Standard Webhooks signature (webhook-id, webhook-timestamp, webhook-signature) over the raw
// body, refuses timestamps outside a 5-minute window, compares in constant time, and de-duplicates on event_id
// (a delivery can arrive more than once). Answer 2xx quickly; do slow work after answering.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import { pathToFileURL } from 'node:url';

export const TOLERANCE_SECONDS = 5 * 60;

/**
 * Verifies a delivery. `headers` is an object with lower-case names (as node:http gives them); `body` the raw
 * body as a string. Returns the parsed event, or throws an Error naming what failed.
 */
export function verifyWebhook(secret, headers, body, { nowSeconds = Math.floor(Date.now() / 1000), toleranceSeconds = TOLERANCE_SECONDS } = {}) {
  const id = headers['webhook-id'];
  const timestamp = headers['webhook-timestamp'];
  const signatures = headers['webhook-signature'];
  if (!id || !timestamp || !signatures) throw new Error('missing webhook headers');
  if (!/^\d+$/.test(timestamp)) throw new Error('invalid webhook-timestamp');
  if (Math.abs(nowSeconds - Number(timestamp)) > toleranceSeconds) throw new Error('webhook-timestamp outside the tolerance window');

  // The key is the base64 part of the secret, decoded.
  const key = Buffer.from(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret, 'base64');
  const expected = Buffer.from(createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64'));

  // The header may carry several space-separated "v1,<base64>" entries (secret rotation). Compare the base64 text
  // in constant time, as the official libraries do.
  for (const entry of signatures.split(' ')) {
    const [version, signature] = entry.split(',');
    if (version !== 'v1' || !signature) continue;
    const given = Buffer.from(signature);
    if (given.length === expected.length && timingSafeEqual(given, expected)) return JSON.parse(body);
  }
  throw new Error('no valid signature');
}

/** Starts a receiver; `onEvent(event)` runs once per event_id. */
export function startReceiver({ secret, port = 4242, host = '127.0.0.1', onEvent = (event) => console.log(event.event_type, event.event_id) }) {
  const seen = new Set();
  const server = createServer((req, res) => {
    if (req.method !== 'POST') {
      res.writeHead(405).end();
      return;
    }
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let event;
      try {
        event = verifyWebhook(secret, req.headers, body);
      } catch (error) {
        res.writeHead(400, { 'content-type': 'text/plain' }).end(`rejected: ${error.message}`);
        return;
      }
      if (!seen.has(event.event_id)) {
        seen.add(event.event_id);
        onEvent(event);
      }
      res.writeHead(204).end();
    });
  });
  return new Promise((resolve) => server.listen(port, host, () => resolve(server)));
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const secret = process.env.RAIL_WEBHOOK_SECRET;
  if (!secret) {
    console.error('set RAIL_WEBHOOK_SECRET to the whsec_... secret Rail printed at start');
    process.exit(1);
  }
  const server = await startReceiver({ secret, port: Number(process.env.PORT ?? 4242) });
  const address = server.address();
  console.log(`listening on http://${address.address}:${address.port}/`);
}
