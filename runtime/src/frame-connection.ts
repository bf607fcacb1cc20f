import { connect, WindowMessenger, type RemoteProxy } from 'penpal';
import type { FrameMethods, HostMethods } from '../../protocol/frame-messages';
import { pinHandshakeOrigin } from '../../protocol/frame-handshake';

export type FrameRemote = RemoteProxy<FrameMethods>;

export interface FrameConnection {
  promise: Promise<FrameRemote>;
  destroy(): void;
}

export interface ConnectFrameOptions {
  /** The frame's origin (js_url's origin): the only origin this side accepts messages from. */
  frameOrigin: string;
  channel: string;
  timeout: number;
  methods: HostMethods;
}

export type ConnectFrame = (iframe: HTMLIFrameElement, options: ConnectFrameOptions) => FrameConnection;

/** Opens the host side of one element's penpal connection; call it after the iframe is in the document. */
export const connectFrame: ConnectFrame = (iframe, { frameOrigin, channel, timeout, methods }) => {
  // A container outside the document gives the iframe no window to talk to; that surfaces as loaderror.
  if (!iframe.contentWindow) return { promise: Promise.reject(new Error('The iframe has no window.')), destroy: () => {} };
  const remoteWindow = iframe.contentWindow as Window;
  const messenger = pinHandshakeOrigin(new WindowMessenger({ remoteWindow, allowedOrigins: [frameOrigin] }), remoteWindow, frameOrigin);
  // The handshake timeout is this side's, not penpal's: penpal's timer outlives destroy(), so an element unmounted
  // before its frame answered kept it (and the detached iframe) for the whole timeout.
  const connection = connect<FrameMethods>({ messenger, methods, channel });
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      connection.destroy();
      reject(new Error('CONNECTION_TIMEOUT'));
    }, timeout);
  });
  return {
    promise: Promise.race([connection.promise, timedOut]).finally(() => clearTimeout(timer)),
    destroy: () => {
      clearTimeout(timer);
      connection.destroy();
    },
  };
};
