/**
 * Request bodies over Node's HTTP server (http/request-body.ts and the body limit in app.ts): a body read straight
 * from the IncomingMessage answers as Hono's Web Request would have (the same bytes and text: a BOM dropped,
 * invalid UTF-8 replaced), a declared Content-Length over the limit is refused before anything is read, a body
 * without Content-Length (chunked) is still counted by Hono's limit, and an Idempotency-Key replay answers the very
 * text the first call sent. app.request() tests never reach this path: they have no IncomingMessage.
 */
import { IncomingMessage, request as httpRequest, type Server } from 'node:http';
import { Socket } from 'node:net';
import type { Context } from 'hono';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createHarness, type Harness } from '../test-support/harness';
import { requestBodyBytes, requestBodyText } from './request-body';

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

describe('request bodies over a real HTTP server', () => {
  let h: Harness;
  let server: Server;
  let port: number;

  beforeAll(async () => {
    h = await createHarness('sqlite');
    server = await new Promise<Server>((resolveServer) => {
      const started = serve({ fetch: h.app.fetch, hostname: '127.0.0.1', port: 0 }, () => resolveServer(started as Server)) as Server;
    });
    port = (server.address() as { port: number }).port;
  });
  afterAll(async () => {
    await new Promise((resolveClose) => server.close(resolveClose));
    await h?.close();
  });

  /** POST with the given body; `chunks` sends it chunked (no Content-Length). */
  function post(path: string, body: Buffer | Buffer[], headers: Record<string, string> = {}): Promise<Answer> {
    return new Promise((resolveAnswer, reject) => {
      const chunked = Array.isArray(body);
      const request = httpRequest(
        {
          host: '127.0.0.1',
          port,
          path,
          method: 'POST',
          headers: {
            'api-key': h.secretKey,
            'content-type': 'application/json',
            ...(chunked ? {} : { 'content-length': String(body.length) }),
            ...headers,
          },
        },
        (response) => {
          const parts: Buffer[] = [];
          response.on('data', (part: Buffer) => parts.push(part));
          response.on('end', () => resolveAnswer({ status: response.statusCode ?? 0, headers: response.headers, text: Buffer.concat(parts).toString('utf8') }));
        },
      );
      request.on('error', reject);
      for (const part of chunked ? body : [body]) request.write(part);
      request.end();
    });
  }

  const json = (value: unknown) => Buffer.from(JSON.stringify(value));

  test('a JSON body with Content-Length is read and answered', async () => {
    const answer = await post('/payments', json({ amount: 1234, currency: 'INR' }));
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.text)).toMatchObject({ amount: 1234, currency: 'INR' });
    expect(answer.headers['access-control-allow-origin']).toBe('*');
    expect(answer.headers['x-request-id']).toEqual(expect.any(String));
  });

  test('a leading UTF-8 BOM is dropped and invalid UTF-8 becomes U+FFFD, as Request.text() does', async () => {
    const body = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"amount":100,"currency":"INR","metadata":{"k":"a'), Buffer.from([0xff]), Buffer.from('b"}}')]);
    const answer = await post('/payments', body);
    expect(answer.status).toBe(200);
    expect((JSON.parse(answer.text) as { metadata: Record<string, string> }).metadata['k']).toBe('a\ufffdb');
  });

  test('a declared Content-Length over the limit is refused (ERR_2009)', async () => {
    const answer = await post('/payments', Buffer.alloc(300 * 1024, 0x20));
    expect(JSON.parse(answer.text)).toMatchObject({ error: { code: 'ERR_2009' } });
  });

  test('a chunked body is counted by the limit: over it ERR_2009, within it answered', async () => {
    // The server may answer and close before it has read the rest: a reset instead of the answer is a refusal too.
    const over = await post('/payments', Array.from({ length: 30 }, () => Buffer.alloc(10 * 1024, 0x20))).catch((error: Error) => error);
    if (over instanceof Error) expect(over.message).toMatch(/socket hang up|ECONNRESET|EPIPE/);
    else expect(JSON.parse(over.text)).toMatchObject({ error: { code: 'ERR_2009' } });
    const within = await post('/payments', [Buffer.from('{"amount":77,'), Buffer.from('"currency":"INR"}')]);
    expect(within.status).toBe(200);
    expect(JSON.parse(within.text)).toMatchObject({ amount: 77 });
  });

  test('malformed JSON is ERR_2005; an empty body reads as {}', async () => {
    expect(JSON.parse((await post('/payments', Buffer.from('{"amount":'))).text)).toMatchObject({ error: { code: 'ERR_2005' } });
    const created = JSON.parse((await post('/payments', json({ amount: 500, currency: 'INR' }))).text) as { payment_id: string };
    const empty = await post(`/payments/${created.payment_id}/confirm`, Buffer.alloc(0));
    expect(empty.text).not.toContain('ERR_2005');
  });

  test('Idempotency-Key: the replay answers the text the first call sent; another body with the key is ERR_4091', async () => {
    const key = { 'idempotency-key': `body-${Date.now()}` };
    const first = await post('/payments', json({ amount: 4242, currency: 'INR' }), key);
    expect(first.status).toBe(200);
    // The same request, keys in another order and other whitespace: the same fingerprint.
    const again = await post('/payments', Buffer.from('{ "currency": "INR", "amount": 4242 }'), key);
    expect(again.status).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.text).toBe(first.text);
    const other = await post('/payments', json({ amount: 1, currency: 'INR' }), key);
    expect(JSON.parse(other.text)).toMatchObject({ error: { code: 'ERR_4091' } });
  });

  test('Idempotency-Key on a request that fails validation stores and replays the error', async () => {
    const key = { 'idempotency-key': `invalid-${Date.now()}` };
    const first = await post('/payments', json({ amount: 'x' }), key);
    expect(first.status).toBe(400);
    const again = await post('/payments', json({ amount: 'x' }), key);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.text).toBe(first.text);
  });
});

describe('requestBodyBytes on a request the client already left', () => {
  test('rejects as aborted (ECONNRESET) at once instead of waiting for events that were emitted already', async () => {
    const incoming = new IncomingMessage(new Socket());
    const closed = new Promise((resolveClosed) => incoming.once('close', resolveClosed));
    incoming.destroy();
    // Its 'close' has been emitted before anything reads the body.
    await closed;
    const bodyCache: { arrayBuffer?: Promise<ArrayBuffer> } = {};
    // The adapter's own request object is not a plain Web Request; only what requestBodyBytes reads is given.
    const c = { env: { incoming }, req: { raw: Object.create({}), bodyCache, arrayBuffer: () => bodyCache.arrayBuffer! } } as unknown as Context;
    const outcome = await Promise.race([
      requestBodyBytes(c).then(
        () => 'read',
        (error: { code?: string }) => error.code,
      ),
      new Promise((resolveLater) => setTimeout(() => resolveLater('still waiting'), 1_000)),
    ]);
    expect(outcome).toBe('ECONNRESET');
  });
});

describe('a body read straight from Node, then through Hono', () => {
  let server: Server;
  let port: number;
  beforeAll(async () => {
    const app = new Hono();
    // Rail's text read first, then Hono's own byte read: the bytes as sent, not the text encoded again.
    app.post('/text-then-bytes', async (c) => {
      const text = await requestBodyText(c);
      const bytes = Buffer.from(await c.req.arrayBuffer());
      return c.json({ text, bytes: bytes.toString('hex'), again: Buffer.from(await requestBodyBytes(c)).toString('hex') });
    });
    // Rail's byte read first, then Hono's text and Rail's text.
    app.post('/bytes-then-text', async (c) => {
      const bytes = Buffer.from(await requestBodyBytes(c));
      return c.json({ bytes: bytes.toString('hex'), hono: Buffer.from(await c.req.arrayBuffer()).toString('hex'), text: await requestBodyText(c) });
    });
    server = await new Promise<Server>((resolveServer) => {
      const started = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, () => resolveServer(started as Server)) as Server;
    });
    port = (server.address() as { port: number }).port;
  });
  afterAll(() => new Promise((resolveClose) => server.close(resolveClose)));

  const body = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"k":"a'), Buffer.from([0xff]), Buffer.from('b"}')]);
  const send = (path: string) =>
    new Promise<Record<string, string>>((resolveAnswer, reject) => {
      const request = httpRequest({ host: '127.0.0.1', port, path, method: 'POST', headers: { 'content-length': String(body.length) } }, (response) => {
        const parts: Buffer[] = [];
        response.on('data', (part: Buffer) => parts.push(part));
        response.on('end', () => resolveAnswer(JSON.parse(Buffer.concat(parts).toString('utf8')) as Record<string, string>));
      });
      request.on('error', reject);
      request.end(body);
    });

  test('text first: the text drops the BOM and replaces invalid UTF-8, and every byte reader gets the bytes as sent', async () => {
    expect(await send('/text-then-bytes')).toEqual({ text: '{"k":"a\ufffdb"}', bytes: body.toString('hex'), again: body.toString('hex') });
  });

  test('bytes first: Hono reads the same bytes, and the text is decoded from them', async () => {
    expect(await send('/bytes-then-text')).toEqual({ bytes: body.toString('hex'), hono: body.toString('hex'), text: '{"k":"a\ufffdb"}' });
  });
});
