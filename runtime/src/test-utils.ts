import nodeConsole from 'node:console';
import { vi } from 'vitest';
import type { ConfirmOutcome, FrameEvent, HostMethods, PaymentResult } from '../../protocol/frame-messages';
import type { RuntimeEnv } from './env';
import type { ConnectFrameOptions, FrameRemote } from './frame-connection';

export const PUBLISHABLE_KEY = 'rail_open_test_' + 'k'.repeat(32);
export const CLIENT_SECRET = 'pay_abc123_secret_' + 'S'.repeat(20);
export const FRAME_ORIGIN = 'https://js.rail.test';

export const PAYMENT: PaymentResult = { payment_id: 'pay_abc123', status: 'succeeded', amount: 10050, currency: 'INR' };

/** Keeps happy-dom from fetching iframe documents (the frame is faked at the connection), without its console notice. */
export function disableIframeLoading(): void {
  (window as unknown as { happyDOM: { settings: { disableIframePageLoading: boolean } } }).happyDOM.settings.disableIframePageLoading = true;
  // happy-dom reports each skipped iframe through the Node console it was created with.
  const error = nodeConsole.error;
  if ((error as { quiet?: boolean }).quiet) return;
  const quiet = (...args: unknown[]) => {
    if (!String(args[0]).includes('Iframe page loading is disabled')) error.apply(nodeConsole, args);
  };
  nodeConsole.error = Object.assign(quiet, { quiet: true });
}

interface FakeConnection {
  iframe: HTMLIFrameElement;
  options: ConnectFrameOptions;
  destroy: ReturnType<typeof vi.fn>;
  /** Completes the handshake with the fake frame. */
  connect(): void;
  fail(): void;
  /** Sends an event as the frame would. */
  emit(event: FrameEvent): void;
}

/** A runtime environment whose frame is a set of mocks and whose navigation is recorded. */
export function fakeEnv(outcome: ConfirmOutcome = { payment: PAYMENT }) {
  const remote = {
    update: vi.fn(async () => {}),
    confirm: vi.fn(async () => outcome),
    focus: vi.fn(async () => {}),
    blur: vi.fn(async () => {}),
    clear: vi.fn(async () => {}),
  };
  const connections: FakeConnection[] = [];
  const navigate = vi.fn<(url: string) => void>();
  const fetch = vi.fn<typeof globalThis.fetch>();
  const env: RuntimeEnv = {
    frameOrigin: FRAME_ORIGIN,
    frameUrl: FRAME_ORIGIN + '/frame/',
    // As served: no API base in the script; retrievePayment asks the deployment.
    deploymentApiBaseUrl: vi.fn(async () => 'https://api.rail.test'),
    frameTimeout: 1000,
    connectFrame: (iframe, options) => {
      let resolve!: (remote: FrameRemote) => void;
      let reject!: (error: Error) => void;
      const promise = new Promise<FrameRemote>((res, rej) => {
        resolve = res;
        reject = rej;
      });
      const destroy = vi.fn();
      const methods: HostMethods = options.methods;
      connections.push({
        iframe,
        options,
        destroy,
        connect: () => resolve(remote as unknown as FrameRemote),
        fail: () => reject(new Error('CONNECTION_TIMEOUT')),
        emit: (event) => methods.emit(event),
      });
      return { promise, destroy };
    },
    navigate,
    fetch,
  };
  return { env, remote, connections, navigate, fetch };
}

/** Lets pending promise callbacks run. */
export const flush = () => new Promise((resolve) => setTimeout(resolve, 0));
