/**
 * The frame document's module script: small, so it runs as soon as it arrives. It reads the fragment, takes the
 * load request the document's inline script started (the payment's methods with the payment expanded: one request,
 * one CORS preflight; started here only when the document has no such script) and starts the penpal handshake with
 * the page, then runs the frame app (main.tsx, a separate chunk the document preloads in parallel), which takes that
 * response and that connection instead of starting them. Both so overlap the download and parse of the app instead
 * of following it (issue 17 §4).
 */
import type { FrameMethods } from '../../protocol/frame-messages';
import { clientError } from './errors';
import { connectHost, methodsOnceStarted } from './host-connection';
import { LOCALE_CHUNKS } from './locale-chunks';
import { DECLARING_KEY, startLoadRequests, takeEarlyLoad, type EarlyLoadWindow } from './load-requests';
import { documentApiBaseUrl, parseFrameParams } from './params';
import './styles.css';

// The inline script is loading this document again (early-load.ts): nothing starts here meanwhile.
const declaring = (window as EarlyLoadWindow)[DECLARING_KEY] === true;
const params = declaring ? undefined : parseFrameParams(window.location.hash, documentApiBaseUrl(document));
// Started by the document's inline script (early-load.ts) as the parser reached it; here only without that script.
const prefetched = params ? (takeEarlyLoad(window) ?? startLoadRequests(params.config, (...args) => window.fetch(...args))) : undefined;
// The penpal handshake with the page starts now too, so it is done by the time the app has its methods.
let startApp!: (methods: FrameMethods) => void;
const host = params ? connectHost(params.merchantOrigin, params.channel, methodsOnceStarted(new Promise((resolve) => (startApp = resolve)))) : undefined;

// A locale other than English is a chunk of its own: it loads beside the app chunk, not after it.
const locale = params?.config.locale;
if (locale !== undefined && locale !== 'en') void LOCALE_CHUNKS[locale]().catch(() => {});

if (!declaring) void import('./main').then(
  ({ start }) => start(document.getElementById('root') as HTMLElement, params, prefetched, host && { host, started: startApp }),
  // The app chunk did not load (network, deployment): the page hears it at once instead of waiting for `ready`.
  () => host?.emit({ type: 'loaderror', error: clientError('ERR_6003', 'The payment form did not load. Refresh the page to try again.') }),
);
