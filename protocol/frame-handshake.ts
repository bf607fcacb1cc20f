/** The part of penpal's WindowMessenger that pinHandshakeOrigin replaces (protocol/ does not import penpal). */
export interface HandshakeMessenger {
  // Method syntax: penpal's own message type is narrower, and only `type` is read here.
  sendMessage(message: { type?: unknown }, transferables?: Transferable[]): void;
}

/** True unless `win` is a window this side can read and it is at another origin than `origin`. */
function mayBeAt(win: Window, origin: string): boolean {
  try {
    return win.origin === origin;
  } catch {
    // A cross-origin window: postMessage's targetOrigin decides.
    return true;
  }
}

/**
 * penpal (7.0.x) posts its handshake SYN with targetOrigin '*'. Both ends of an element's channel know their peer's
 * exact origin (the page: js_url's; the frame: the merchant origin it was created for), so SYN goes to that origin
 * only. Not at all to a window this side can read that is at another origin: the iframe's initial about:blank (the
 * page's origin) at the host's first SYN, where the browser would only log a mismatch; the frame's own SYN, once it
 * has loaded, is answered. Every later handshake message already goes to the origin the SYN came from.
 */
export function pinHandshakeOrigin<M extends HandshakeMessenger>(messenger: M, remoteWindow: Window, origin: string): M {
  const send = messenger.sendMessage.bind(messenger);
  messenger.sendMessage = (message, transferables) => {
    if (message?.type !== 'SYN') return send(message, transferables);
    if (mayBeAt(remoteWindow, origin)) remoteWindow.postMessage(message, { targetOrigin: origin, transfer: transferables });
  };
  return messenger;
}
