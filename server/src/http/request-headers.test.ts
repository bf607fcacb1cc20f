import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAdaptorServer } from '@hono/node-server';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { AppEnv } from './env';
import { rawHeaderValue, readHeadersFromNode } from './request-headers';

const NAMES = ['authorization', 'Authorization', 'x-thing', 'content-type', 'X-Empty', 'x-missing', 'host'];

/** A Node server whose one route answers, per name, c.req.header(name) and what the Web Headers give for it. */
function headerEcho() {
  const app = new Hono<AppEnv>();
  app.use('*', readHeadersFromNode);
  app.get('/untouched', (c) => {
    let touched = false;
    const raw = c.req.raw;
    c.req.raw = new Proxy(raw, {
      get(target, property) {
        if (property === 'headers') touched = true;
        const value = Reflect.get(target, property, target) as unknown;
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
    const thing = c.req.header('x-thing');
    return c.json({ thing, webHeadersRead: touched });
  });
  app.get('/echo', (c) =>
    c.json({
      viaHeader: Object.fromEntries(NAMES.map((name) => [name, c.req.header(name) ?? null])),
      viaWebHeaders: Object.fromEntries(NAMES.map((name) => [name, c.req.raw.headers.get(name)])),
      all: c.req.header(),
    }),
  );
  return createAdaptorServer({ fetch: app.fetch });
}

describe('readHeadersFromNode', () => {
  const server = headerEcho();
  beforeAll(() => new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready)));
  afterAll(() => new Promise<void>((closed) => server.close(() => closed())));

  const get = <Answer = { viaHeader: Record<string, string | null>; viaWebHeaders: Record<string, string | null>; all: Record<string, string> }>(
    headers: Record<string, string | string[]>,
    path = '/echo',
  ) =>
    new Promise<Answer>((resolveGet, rejectGet) => {
      const { port } = server.address() as AddressInfo;
      const req = httpRequest({ host: '127.0.0.1', port, path, headers }, (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
        res.on('end', () => resolveGet(JSON.parse(body)));
      });
      req.on('error', rejectGet);
      req.end();
    });

  test('a header is read as the Web Headers read it: any case, repeated fields joined with ", "', async () => {
    const answer = await get({ Authorization: ['Bearer first', 'Bearer second'], 'X-Thing': ['a', 'b'], 'Content-Type': 'application/json', 'x-empty': '' });
    expect(answer.viaHeader).toEqual(answer.viaWebHeaders);
    expect(answer.viaHeader).toMatchObject({
      authorization: 'Bearer first, Bearer second',
      Authorization: 'Bearer first, Bearer second',
      'x-thing': 'a, b',
      'content-type': 'application/json',
      'X-Empty': '',
      'x-missing': null,
    });
    expect(answer.all).toMatchObject({ authorization: 'Bearer first, Bearer second', 'x-thing': 'a, b', 'content-type': 'application/json' });
  });

  test('reading one header does not build the Web Headers', async () => {
    expect(await get({ 'x-thing': 'c' }, '/untouched')).toEqual({ thing: 'c', webHeadersRead: false });
  });

  test('rawHeaderValue on its own', () => {
    const raw = ['Host', 'example.test', 'X-Key', 'one', 'x-key', 'two', 'Content-Length', '0'];
    expect(rawHeaderValue(raw, 'x-KEY')).toBe('one, two');
    expect(rawHeaderValue(raw, 'content-length')).toBe('0');
    expect(rawHeaderValue(raw, 'x-ke')).toBeUndefined();
    expect(rawHeaderValue([], 'host')).toBeUndefined();
  });
});
