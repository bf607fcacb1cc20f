import { expect, test, vi } from 'vitest';
import { pinHandshakeOrigin } from './frame-handshake';

const PEER = 'https://js.rail.test';
const SYN = { namespace: 'penpal', channel: 'rail-1', type: 'SYN', participantId: 'p' };

/** A window as the other side sees it: cross-origin (its origin cannot be read) or readable at `origin`. */
function peerWindow(origin?: string) {
  const postMessage = vi.fn();
  const win = { postMessage, get origin(): string {
    if (origin === undefined) throw new DOMException('Blocked a frame from accessing a cross-origin frame.', 'SecurityError');
    return origin;
  } } as unknown as Window;
  return { win, postMessage };
}

test('SYN goes to the pinned origin, never to "*"', () => {
  const { win, postMessage } = peerWindow();
  const send = vi.fn();
  pinHandshakeOrigin({ sendMessage: send }, win, PEER).sendMessage(SYN);
  expect(postMessage).toHaveBeenCalledWith(SYN, { targetOrigin: PEER, transfer: undefined });
  expect(send).not.toHaveBeenCalled();
});

test('SYN is not sent to a window that is still at another origin (the iframe before the frame loaded)', () => {
  const { win, postMessage } = peerWindow('https://shop.test');
  pinHandshakeOrigin({ sendMessage: vi.fn() }, win, PEER).sendMessage(SYN);
  expect(postMessage).not.toHaveBeenCalled();
  const same = peerWindow(PEER);
  pinHandshakeOrigin({ sendMessage: vi.fn() }, same.win, PEER).sendMessage(SYN);
  expect(same.postMessage).toHaveBeenCalledWith(SYN, { targetOrigin: PEER, transfer: undefined });
});

test('the other handshake messages and calls go through the messenger as they did', () => {
  const { win, postMessage } = peerWindow();
  const send = vi.fn();
  const ack = { namespace: 'penpal', channel: 'rail-1', type: 'ACK1', methodPaths: [] };
  pinHandshakeOrigin({ sendMessage: send }, win, PEER).sendMessage(ack);
  expect(send).toHaveBeenCalledWith(ack, undefined);
  expect(postMessage).not.toHaveBeenCalled();
});
