/**
 * The frame document's only script: small, so it runs as soon as it arrives. It reads the fragment and starts the
 * load request (the payment's methods with the payment expanded: one request, one CORS preflight), then runs the
 * frame app (main.tsx, a separate chunk the document preloads in parallel), which takes that response instead of
 * asking again. The API call so overlaps the download and parse of the app instead of following it (issue 17 §4).
 */
import { startLoadRequests } from './load-requests';
import { documentApiBaseUrl, parseFrameParams } from './params';
import './styles.css';

const params = parseFrameParams(window.location.hash, documentApiBaseUrl(document));
const prefetched = params ? startLoadRequests(params.config, (...args) => window.fetch(...args)) : undefined;

void import('./main').then(({ start }) => start(document.getElementById('root') as HTMLElement, params, prefetched));
