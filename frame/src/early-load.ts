/**
 * The frame document's inline head script (vite.config.ts inlines this file's build; the js listener allows it by
 * its hash in the frame's CSP). It runs as the parser reaches it, before the boot module has been read from the
 * cache, compiled and run, and starts the load request then: on a warm mount that is some 20 to 40 ms earlier.
 * The boot script takes the started response (takeEarlyLoad) and starts its own only when there is none, as under
 * the vite dev server, which serves the document without this script.
 */
import { DECLARING_KEY, EARLY_LOAD_KEY, startLoadRequests, type EarlyLoadWindow } from './load-requests';
import { documentApiBaseUrl, parseFrameParams, urlDeclaringOrigins } from './params';

const params = parseFrameParams(window.location.hash, documentApiBaseUrl(document));
const declaring = params && urlDeclaringOrigins(window.location, params.config);
if (declaring) {
  // Its CSP would refuse some of its requests: this document only loads itself again, allowed them (the boot script
  // does nothing meanwhile).
  (window as EarlyLoadWindow)[DECLARING_KEY] = true;
  window.location.replace(declaring);
} else if (params) {
  (window as EarlyLoadWindow)[EARLY_LOAD_KEY] = startLoadRequests(params.config, (...args) => window.fetch(...args));
}
