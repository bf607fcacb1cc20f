/**
 * @rail/vite: `rail()` in a vite.config.ts starts an embedded Rail test server (@rail/server) with `vite dev`,
 * exposes its publishable key and js_url to the page as `import.meta.env.VITE_RAIL_PUBLISHABLE_KEY` and
 * `import.meta.env.VITE_RAIL_JS_URL`, answers a dev-only endpoint that creates a payment (the merchant backend's job,
 * done with the server's secret key) and stops the server with vite. `vite build` and `vite preview` are untouched.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { startRail, type RunningRail, type StartRailOptions } from '@rail/server';
import type { Plugin } from 'vite';

export interface RailPluginOptions {
  /** Options of the embedded server (`startRail()` of @rail/server): ports, account config, fixed keys, ... */
  server?: StartRailOptions;
  /** The dev-only endpoint: `POST {paymentEndpoint}` creates a payment and answers `{ payment_id, client_secret }`. Default `/__rail/payment`. */
  paymentEndpoint?: string;
  /** The body of the payment when the request has none. Default `{ amount: 10000, currency: 'INR' }`. */
  defaultPayment?: Record<string, unknown>;
}

const MAX_BODY = 64 * 1024;

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolveBody, reject) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      body += chunk;
      if (body.length > MAX_BODY) reject(new Error('body too large'));
    });
    req.on('end', () => resolveBody(body));
    req.on('error', reject);
  });
}

/** Errors in Rail's envelope, with codes of its catalog (protocol/errors.ts). */
const unavailable = (message: string) => ({ error: { type: 'api_error', message, code: 'ERR_5006' } });

const refusedOrigin = { error: { type: 'permission_error', message: 'Only a page of the dev server itself may create payments here.', code: 'ERR_1009' } };
const notJson = { error: { type: 'invalid_request', message: 'Send the body as Content-Type: application/json.', code: 'ERR_2008' } };

/**
 * The endpoint spends the server's secret key, so only the dev server's own pages may call it: a browser names
 * another page's origin in Origin (null for sandboxed frames and file://) and in Sec-Fetch-Site. Requests without
 * either come from no browser page (curl, tests) and pass.
 */
function fromOwnOrigin(req: IncomingMessage): boolean {
  const site = req.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin' && site !== 'none') return false;
  const origin = req.headers.origin;
  if (origin === undefined) return true;
  try {
    return new URL(origin).host === req.headers.host;
  } catch {
    return false;
  }
}

// A cross-site form can only send urlencoded, multipart or text/plain bodies; JSON needs a CORS preflight.
const JSON_TYPE = /^application\/json\s*(;|$)/i;

function json(res: ServerResponse, status: number, body: unknown): void {
  res.statusCode = status;
  res.setHeader('content-type', 'application/json');
  res.end(JSON.stringify(body));
}

export function rail(options: RailPluginOptions = {}): Plugin {
  const endpoint = options.paymentEndpoint ?? '/__rail/payment';
  let running: RunningRail | undefined;
  let stopping: Promise<void> | undefined;
  const stop = async () => {
    const server = running;
    running = undefined;
    if (server) await (stopping = server.stop());
    else await stopping;
  };

  return {
    name: 'rail',
    // `vite dev` only: neither `vite build` nor `vite preview` starts a server.
    apply: (_config, env) => env.command === 'serve' && env.isPreview !== true,
    async config() {
      await stop();
      running = await startRail(options.server);
      return {
        define: {
          'import.meta.env.VITE_RAIL_PUBLISHABLE_KEY': JSON.stringify(running.publishableKey),
          'import.meta.env.VITE_RAIL_JS_URL': JSON.stringify(running.jsUrl),
          'import.meta.env.VITE_RAIL_PAYMENT_ENDPOINT': JSON.stringify(endpoint),
        },
      };
    },
    configureServer(vite) {
      vite.httpServer?.once('close', () => void stop());
      vite.middlewares.use(endpoint, (req, res, next) => {
        if (req.method !== 'POST') return next();
        if (!fromOwnOrigin(req)) return json(res, 403, refusedOrigin);
        const type = req.headers['content-type'];
        if (type !== undefined && !JSON_TYPE.test(type)) return json(res, 415, notJson);
        void (async () => {
          const server = running;
          if (server === undefined) return json(res, 503, unavailable('The Rail dev server is not running.'));
          let body: string;
          try {
            body = await readBody(req);
            // Without a content type only an empty body (the default payment) is taken.
            if (type === undefined && body !== '') return json(res, 415, notJson);
            const parsed: unknown = body.trim() === '' ? {} : JSON.parse(body);
            if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new TypeError('not an object');
          } catch {
            return json(res, 400, { error: { type: 'invalid_request', message: 'The body must be a JSON object of at most 64 KiB.', code: 'ERR_2005' } });
          }
          const created = await fetch(`${server.baseUrl}/payments`, {
            method: 'POST',
            headers: { 'api-key': server.secretKey, 'content-type': 'application/json' },
            body: body.trim() === '' ? JSON.stringify(options.defaultPayment ?? { amount: 10000, currency: 'INR' }) : body,
          });
          const answer = (await created.json()) as { payment_id?: string; client_secret?: string; error?: unknown };
          // Only what the page needs: the payment id and its client secret (or Rail's error envelope).
          if (!created.ok) return json(res, created.status, answer);
          json(res, 200, { payment_id: answer.payment_id, client_secret: answer.client_secret });
        })().catch((error: unknown) => json(res, 503, unavailable(`The Rail dev server did not answer: ${String(error)}`)));
      });
    },
    async closeBundle() {
      await stop();
    },
  };
}

export default rail;
