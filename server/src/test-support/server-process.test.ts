import { readFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { freePort } from './server-process';

const ephemeralStart = (() => {
  try {
    return Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
  } catch {
    return undefined;
  }
})();

describe('freePort', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it.runIf(ephemeralStart !== undefined && ephemeralStart > 21_000)('hands out ports below the range outgoing connections draw from', async () => {
    const ports = await Promise.all(Array.from({ length: 20 }, () => freePort()));
    for (const port of ports) {
      expect(port).toBeGreaterThanOrEqual(20_000);
      expect(port).toBeLessThan(ephemeralStart!);
    }
  });

  it('hands out a port that can be listened on', async () => {
    const port = await freePort();
    const server = createServer((socket) => socket.end('ok'));
    await new Promise<void>((resolveListen, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolveListen());
    });
    const answer = await new Promise<string>((resolveAnswer, reject) => {
      const socket = connect(port, '127.0.0.1');
      let text = '';
      socket.on('data', (chunk) => (text += chunk.toString()));
      socket.on('end', () => resolveAnswer(text));
      socket.on('error', reject);
    });
    await new Promise((resolveClose) => server.close(resolveClose));
    expect(answer).toBe('ok');
  });

  it.runIf(ephemeralStart !== undefined && ephemeralStart > 21_000)('never hands out the same port twice in one process, though the first is free again', async () => {
    // The second call's first draw is the draw that gave the first port, whatever other processes hold: fixed draws
    // (0.5, 0.5, then 0.25 for ever) made the second call fail when the first draw's port was taken, since the first
    // call then returned the only port the rest of its draws could give.
    const random = Math.random.bind(Math);
    const draws: number[] = [];
    const spy = vi.spyOn(Math, 'random').mockImplementation(() => {
      const draw = random();
      draws.push(draw);
      return draw;
    });
    const first = await freePort();
    spy.mockImplementationOnce(() => draws.at(-1)!);
    const second = await freePort();
    expect(second).not.toBe(first);
  });
});
