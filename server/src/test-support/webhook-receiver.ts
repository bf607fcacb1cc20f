/**
 * A recording webhook receiver for black-box tests (crash.test.ts): node:http on 127.0.0.1 and a free port. Every
 * delivery is recorded with its raw body and headers, and checked with the documented example's verifyWebhook
 * (docs/examples/webhook-receiver.mjs) when it arrives. `mode` makes it answer 503 to everything ('down'), or 500
 * to the first delivery of each event_id ('fail-first'), so that the sender's retries are exercised.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { verifyWebhook } from '../../../docs/examples/webhook-receiver.mjs';

export interface Delivery {
  eventId: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** The status this receiver answered. */
  answered: number;
  /** undefined when the signature verified; the error message otherwise. */
  verifyError: string | undefined;
  /** The parsed envelope (when the signature verified). */
  event: { event_id: string; event_type: string; content: { object: Record<string, unknown> } } | undefined;
}

export type ReceiverMode = 'ok' | 'fail-first' | 'down';

export interface WebhookReceiver {
  url: string;
  deliveries: Delivery[];
  mode: ReceiverMode;
  /** Event ids answered 2xx at least once. */
  accepted(): Set<string>;
  close(): Promise<void>;
}

export async function startWebhookReceiver(secret: string): Promise<WebhookReceiver> {
  const deliveries: Delivery[] = [];
  const seen = new Set<string>();
  const state = { mode: 'ok' as ReceiverMode };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const eventId = String(req.headers['webhook-id'] ?? '');
      let event: Delivery['event'];
      let verifyError: string | undefined;
      try {
        event = verifyWebhook(secret, req.headers, body) as Delivery['event'];
      } catch (error) {
        verifyError = (error as Error).message;
      }
      let answered = 204;
      if (verifyError !== undefined) answered = 400;
      else if (state.mode === 'down') answered = 503;
      else if (state.mode === 'fail-first' && !seen.has(eventId)) answered = 500;
      seen.add(eventId);
      deliveries.push({ eventId, headers: req.headers, body, answered, verifyError, event });
      res.writeHead(answered).end();
    });
  });
  await new Promise<void>((resolveListen) => server.listen(0, '127.0.0.1', resolveListen));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    deliveries,
    get mode() {
      return state.mode;
    },
    set mode(mode: ReceiverMode) {
      state.mode = mode;
    },
    accepted: () => new Set(deliveries.filter((d) => d.answered >= 200 && d.answered < 300).map((d) => d.eventId)),
    close: () =>
      new Promise<void>((resolveClose) => {
        server.closeAllConnections();
        server.close(() => resolveClose());
      }),
  };
}
