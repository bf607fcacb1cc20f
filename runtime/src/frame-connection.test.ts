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
