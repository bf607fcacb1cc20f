/**
 * A recording webhook receiver for black-box tests (crash.test.ts): node:http on 127.0.0.1 and a free port. Every
 * delivery is recorded with its raw body and headers, and checked with the documented example's verifyWebhook
 * (docs/examples/webhook-receiver.mjs) when it arrives. `mode` makes it answer 503 to everything ('down'), or 500
 * to the first delivery of each event_id ('fail-first'), so that the sender's retries are exercised; 'stall' holds
 * every request unanswered and 'stall-body' sends 200 and the start of a body that never ends, until release().
 */
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
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

export type ReceiverMode = 'ok' | 'fail-first' | 'down' | 'stall' | 'stall-body';

export interface WebhookReceiver {
  url: string;
  deliveries: Delivery[];
  mode: ReceiverMode;
  /** Event ids answered 2xx at least once. */
  accepted(): Set<string>;
  /** Requests held by 'stall' or 'stall-body' and not released yet. */
  stalled(): number;
  /** Ends every held answer: 204 for 'stall', the end of the body for 'stall-body'. */
  release(): void;
  /** Connections open to this receiver now. */
  openConnections(): number;
  close(): Promise<void>;
}

export async function startWebhookReceiver(secret: string): Promise<WebhookReceiver> {
  const deliveries: Delivery[] = [];
  const seen = new Set<string>();
  const state = { mode: 'ok' as ReceiverMode };
  const held: { response: ServerResponse; headersSent: boolean }[] = [];
  const sockets = new Set<Socket>();
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
      if (verifyError === undefined && (state.mode === 'stall' || state.mode === 'stall-body')) {
        const headersSent = state.mode === 'stall-body';
        deliveries.push({ eventId, headers: req.headers, body, answered: headersSent ? 200 : 0, verifyError, event });
        if (headersSent) res.writeHead(200, { 'content-type': 'text/plain' }).write('accepted, and then ');
        held.push({ response: res, headersSent });
        return;
      }
      if (verifyError !== undefined) answered = 400;
      else if (state.mode === 'down') answered = 503;
      else if (state.mode === 'fail-first' && !seen.has(eventId)) answered = 500;
      seen.add(eventId);
      deliveries.push({ eventId, headers: req.headers, body, answered, verifyError, event });
      res.writeHead(answered).end();
    });
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
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
    stalled: () => held.filter((entry) => !entry.response.writableEnded && !entry.response.destroyed).length,
    release: () => {
      for (const { response, headersSent } of held.splice(0)) {
        if (response.writableEnded || response.destroyed) continue;
        if (headersSent) response.end('the end');
        else response.writeHead(204).end();
      }
    },
    openConnections: () => sockets.size,
    close: () =>
      new Promise<void>((resolveClose) => {
        server.closeAllConnections();
        server.close(() => resolveClose());
      }),
  };
}
