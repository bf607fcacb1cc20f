import { afterEach, expect, test, vi } from 'vitest';
import { connectHost, methodsOnceStarted } from './host-connection';

const MERCHANT_ORIGIN = 'https://shop.test';

afterEach(() => {
  vi.restoreAllMocks();
});

test("the handshake's messages to the page name the merchant origin, never '*'", () => {
  // The merchant page, as the frame sees it: a parent window whose origin it cannot read.
  const postMessage = vi.fn();
  const parent = { postMessage, get origin(): string { throw new DOMException('cross-origin', 'SecurityError'); } };
  vi.spyOn(window, 'parent', 'get').mockReturnValue(parent as unknown as Window);
  const host = connectHost(MERCHANT_ORIGIN, 'rail-1', methodsOnceStarted(new Promise(() => {})));
  try {
    expect(postMessage).toHaveBeenCalled();
    for (const [message, options] of postMessage.mock.calls) {
      expect({ type: message.type, targetOrigin: options.targetOrigin }).toEqual({ type: 'SYN', targetOrigin: MERCHANT_ORIGIN });
    }
  } finally {
    host.destroy();
  }
});
