import { connect, WindowMessenger } from 'penpal';
import type { FrameEvent, FrameMethods, HostMethods } from '../../protocol/frame-messages';
import { pinHandshakeOrigin } from '../../protocol/frame-handshake';

/**
 * The frame's methods for a handshake that starts before the app answering them has run (the boot script connects
 * while the app chunk still downloads): each call waits for the app, then goes to it.
 */
export function methodsOnceStarted(app: Promise<FrameMethods>): FrameMethods {
  return {
    update: (config) => void app.then((methods) => methods.update(config)),
    confirm: async (request) => (await app).confirm(request),
    focus: (field) => void app.then((methods) => methods.focus(field)),
    blur: () => void app.then((methods) => methods.blur()),
    clear: () => void app.then((methods) => methods.clear()),
  };
}

export interface HostConnection {
  /** Sends an event to the host; events before the handshake are queued (only the latest resize is kept). */
  emit(event: FrameEvent): void;
  destroy(): void;
}

/** The frame's side of its element's penpal channel, pinned to the merchant origin the frame was created for. */
export function connectHost(merchantOrigin: string, channel: string, methods: FrameMethods): HostConnection {
  const messenger = pinHandshakeOrigin(new WindowMessenger({ remoteWindow: window.parent, allowedOrigins: [merchantOrigin] }), window.parent, merchantOrigin);
  const connection = connect<HostMethods>({ messenger, methods, channel });
  let queue: FrameEvent[] | null = [];
  let send: ((event: FrameEvent) => void) | null = null;
  connection.promise.then((host) => {
    // Read by the mount benchmark (bench/mount.ts): when the handshake with the host finished.
    performance.mark('rail:connected');
    send = (event) => void host.emit(event).catch(() => {});
    const pending = queue ?? [];
    queue = null;
    pending.forEach(send);
  }, () => {});
  return {
    emit(event) {
      if (send) return send(event);
      if (!queue) return;
      if (event.type === 'resize') queue = queue.filter((queued) => queued.type !== 'resize');
      queue.push(event);
    },
    destroy: connection.destroy,
  };
}
