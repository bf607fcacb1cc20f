import type { Server } from 'node:http';
import { connect } from 'node:net';
import { serve } from '@hono/node-server';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { capturedLogger } from '../test-support/captured-logger';
import { createHarness, type Harness } from '../test-support/harness';
import { answerClientErrors } from './client-errors';

/** Sends raw bytes and resolves everything the server wrote back before it closed (or `waitMs` passed). */
function raw(port: number, bytes: string, options: { destroyAfterWrite?: boolean; waitMs?: number } = {}): Promise<string> {
  return new Promise((resolveAnswer) => {
    const socket = connect(port, '127.0.0.1');
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk.toString()));
    socket.on('error', () => undefined);
    socket.on('close', () => resolveAnswer(answer));
    socket.write(bytes, () => {
      if (options.destroyAfterWrite) setTimeout(() => socket.destroy(), 50);
    });
    setTimeout(() => socket.destroy(), options.waitMs ?? 2_000);
  });
}

const envelope = (answer: string) => JSON.parse(answer.slice(answer.lastIndexOf('\r\n\r\n') + 4)) as { error: { code: string } };

describe("errors of Node's HTTP layer answer the envelope; a client that leaves is no 500", () => {
  let h: Harness;
  let server: Server;
  let port: number;
  const { logger, lines: logged } = capturedLogger();

  beforeAll(async () => {
    h = await createHarness('sqlite', { logger });
    server = await new Promise<Server>((resolveServer) => {
      const started = serve({ fetch: h.app.fetch, hostname: '127.0.0.1', port: 0 }, () => resolveServer(started as Server)) as Server;
    });
    answerClientErrors(server, logger);
    port = (server.address() as { port: number }).port;
  });
  afterAll(async () => {
    await new Promise((resolveClose) => server.close(resolveClose));
    await h?.close();
  });

  test('an unknown method: 400 ERR_2012 with a JSON body', async () => {
    const answer = await raw(port, 'FROB /payments HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(answer).toContain('Content-Type: application/json');
    expect(envelope(answer).error.code).toBe('ERR_2012');
  });

  test('headers over the limit: 431 ERR_2011', async () => {
    const answer = await raw(port, `GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    expect(answer).toMatch(/^HTTP\/1\.1 431 /);
    expect(envelope(answer).error.code).toBe('ERR_2011');
  });

  test('more bytes than the Content-Length: the request is answered, then the rest is refused as ERR_2012', async () => {
    const answer = await raw(port, 'POST /payments HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}trailing garbage\r\n\r\n');
    const responses = answer.split(/(?=HTTP\/1\.1 )/);
    expect(responses[0]).toMatch(/^HTTP\/1\.1 401 /);
    expect(responses.at(-1)).toMatch(/^HTTP\/1\.1 400 /);
    expect(envelope(responses.at(-1)!).error.code).toBe('ERR_2012');
  });

  test('a client that disconnects mid-body is logged as a disconnect, never as an unhandled error', async () => {
    const before = logged.length;
    await raw(port, `POST /payments HTTP/1.1\r\nHost: x\r\napi-key: ${h.secretKey}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"amount":`, {
      destroyAfterWrite: true,
      waitMs: 500,
    });
    // The server notices the disconnect on its own schedule: wait for the line (bounded), never a fixed sleep.
    for (let waited = 0; waited < 5_000 && !logged.slice(before).join('').includes('client disconnected'); waited += 20) {
      await new Promise((resolveWait) => setTimeout(resolveWait, 20));
    }
    const lines = logged.slice(before).join('');
    expect(lines).toContain('client disconnected');
    expect(lines).not.toContain('unhandled error');
    expect(lines).not.toContain('"status":500');
  });
});
