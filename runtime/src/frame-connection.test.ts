import { afterEach, expect, test, vi } from 'vitest';
import { connectFrame } from './frame-connection';
import { FRAME_ORIGIN } from './test-utils';

afterEach(() => {
  document.body.innerHTML = '';
});

test("the handshake's messages to the frame name the frame's origin, never '*'", () => {
  const iframe = document.createElement('iframe');
  document.body.appendChild(iframe);
  const frameWindow = iframe.contentWindow!;
  // As once the frame has loaded: a window at js_url's origin, which the page cannot read.
  Object.defineProperty(frameWindow, 'origin', { configurable: true, get: () => { throw new DOMException('cross-origin', 'SecurityError'); } });
  const postMessage = vi.spyOn(frameWindow, 'postMessage').mockImplementation(() => {});
  const connection = connectFrame(iframe, { frameOrigin: FRAME_ORIGIN, channel: 'rail-1', timeout: 1000, methods: { emit: () => {} } });
  connection.promise.catch(() => {});
  try {
    expect(postMessage).toHaveBeenCalled();
    for (const [message, options] of postMessage.mock.calls) {
      expect({ type: (message as { type: string }).type, targetOrigin: (options as WindowPostMessageOptions).targetOrigin }).toEqual({ type: 'SYN', targetOrigin: FRAME_ORIGIN });
    }
  } finally {
    connection.destroy();
  }
});

test('destroyed before the handshake, it leaves no timer behind (the handshake timeout goes with it)', async () => {
  vi.useFakeTimers();
  try {
    const iframe = document.createElement('iframe');
    document.body.appendChild(iframe);
    const connection = connectFrame(iframe, { frameOrigin: FRAME_ORIGIN, channel: 'rail-2', timeout: 15_000, methods: { emit: () => {} } });
    const settled = vi.fn();
    connection.promise.then(settled, settled);
    expect(vi.getTimerCount()).toBeGreaterThan(0);
    connection.destroy();
    expect(vi.getTimerCount()).toBe(0);
  } finally {
    vi.useRealTimers();
  }
});

test('a frame that never answers fails the connection at the timeout', async () => {
  vi.useFakeTimers();
  try {
    const iframe = document.createElement('iframe');
    document.body.appendChild(iframe);
    const connection = connectFrame(iframe, { frameOrigin: FRAME_ORIGIN, channel: 'rail-3', timeout: 15_000, methods: { emit: () => {} } });
    const failed = connection.promise.then(() => 'connected', () => 'timed out');
    await vi.advanceTimersByTimeAsync(15_000);
    expect(await failed).toBe('timed out');
    expect(vi.getTimerCount()).toBe(0);
  } finally {
    vi.useRealTimers();
  }
});
