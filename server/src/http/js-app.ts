/**
 * The js listener ({js_url}): the runtime script at /v1/ and at its content-addressed URL /v1/rail.<hash>.js (and
 * every archived release at its own), /v1/manifest.json naming those URLs and their SRI integrity, /v1/config.json
 * (this deployment's API base_url), the hosted frame at /frame/ with its assets, and /health.
 * Its own origin keeps the frame isolated from merchant pages and from the API.
 *
 * The runtime is served exactly as built: it holds no deployment value, so one build has one hash on every
 * deployment. The API base_url reaches the frame in its document (a meta tag this listener fills in) and the
 * runtime's own calls through /v1/config.json.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Hono, type Context } from 'hono';
import { FRAME_CONNECT_PARAMETER, MAX_FRAME_CONNECT_ORIGINS, frameConnectOrigin } from '../../../protocol/frame-url';
import type { RuntimeConfig, RuntimeManifest, RuntimeRelease } from '../../../protocol/runtime-manifest';
import { ApiError } from '../core/shared/errors';
import type { Logger } from '../logger';
import { createErrorHandler, createNotFoundHandler, errorResponse } from './error-handler';
import { CachedFile, contentTypeFor, loadAfterStart, loadBuiltFile, loadedOnce, negotiateEncoding, safeSegments, type LoadedFile } from './static-files';

/** Placeholder in the built frame document (frame/index.html) that the server replaces with its public base_url. */
export const API_BASE_URL_PLACEHOLDER = '__RAIL_API_BASE_URL__';

/** Where the build puts the archived runtime releases (scripts/runtime-releases.mjs stage). */
export const RELEASES_DIR = join('runtime', 'releases');

export interface JsAppDeps {
  logger: Logger;
  /** Directory of the vite build (dist/). */
  distDir: string;
  /** The API's public base_url, written into the frame document and answered at /v1/config.json. */
  publicBaseUrl: string;
  /** This listener's public URL (js_url), for the runtime's pinned URL in /v1/manifest.json. */
  publicJsUrl: string;
  /** CSP frame-ancestors sources allowed to embed the frame. */
  frameAncestors: readonly string[];
  isReady?: () => boolean;
  /** The runtime build to serve; made from distDir and publicJsUrl when absent. */
  runtime?: RuntimeBuild;
}

/** The runtime as this server serves it, with its content-addressed file name and manifest, derived once per load. */
interface PinnedRuntime {
  file: LoadedFile;
  fileName: string;
  manifestJson: string;
  /** Archived releases whose bytes match their recorded hash and integrity, by file name. */
  releases: Map<string, LoadedFile>;
}

/** One row of runtime/releases/index.json. */
interface ReleaseEntry {
  hash: string;
  integrity: string;
  released: string;
}

function isReleaseEntry(value: unknown): value is ReleaseEntry {
  const entry = value as ReleaseEntry | null;
  return (
    typeof entry?.hash === 'string' &&
    /^[0-9a-f]{16}$/.test(entry.hash) &&
    typeof entry.integrity === 'string' &&
    typeof entry.released === 'string'
  );
}

/**
 * The archived releases the build staged (dist/runtime/releases), each read and checked once: a file whose bytes
 * do not hash to its recorded name and integrity is left out (and logged), never served under a pin it fails.
 */
async function loadReleases(dir: string, logger: Logger): Promise<{ entry: ReleaseEntry; file: LoadedFile }[]> {
  let entries: unknown;
  try {
    entries = JSON.parse(await readFile(join(dir, 'index.json'), 'utf8'));
  } catch {
    return [];
  }
  if (!Array.isArray(entries)) {
    logger.error({ dir }, 'runtime releases index is not a list; no archived release is served');
    return [];
  }
  const releases = [];
  for (const entry of entries) {
    if (!isReleaseEntry(entry)) {
      logger.error({ dir, entry }, 'runtime release entry is malformed; left out');
      continue;
    }
    const file = await loadBuiltFile(join(dir, `rail.${entry.hash}.js`));
    if (file === undefined || file.contentHash !== entry.hash || file.integrity !== entry.integrity) {
      logger.error({ dir, hash: entry.hash }, 'runtime release is missing or its bytes do not match its hash; left out');
      continue;
    }
    releases.push({ entry, file });
  }
  return releases;
}

/** A value written into an HTML attribute. */
const escapeAttribute = (value: string) =>
  value.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

const RUNTIME_HEADERS = {
  'Content-Type': 'text/javascript; charset=utf-8',
  'Access-Control-Allow-Origin': '*',
  'Cross-Origin-Resource-Policy': 'cross-origin',
};
// /v1/ is the URL merchants write by hand, so a deployment must reach them soon; a content-addressed URL never
// changes content, so browsers and CDNs may keep it for good.
const STABLE_URL_CACHE = 'public, max-age=300';
const CONTENT_ADDRESSED_CACHE = 'public, max-age=31536000, immutable';
const STABLE_URL_HEADERS = { ...RUNTIME_HEADERS, 'Cache-Control': STABLE_URL_CACHE };
const CONTENT_ADDRESSED_HEADERS = { ...RUNTIME_HEADERS, 'Cache-Control': CONTENT_ADDRESSED_CACHE };

const NOT_BUILT = (what: string) => new ApiError('ERR_5007', `The ${what} has not been built on this server; run npm run build.`);
const RUNTIME_NOT_BUILT = () => NOT_BUILT('runtime script (dist/runtime/rail.js)');

/**
 * Answers a file in the encoding the client accepts (brotli, gzip, or as is), with `Vary: Accept-Encoding` and a
 * strong ETag per encoding (each encoding is its own representation).
 */
function serveFile(c: Context, file: LoadedFile, headers: Record<string, string>): Response {
  for (const [name, value] of Object.entries(headers)) c.header(name, value);
  const encoding = file.encoded === undefined ? undefined : negotiateEncoding(c.req.header('accept-encoding'));
  const etag = encoding === undefined ? file.etag : `${file.etag.slice(0, -1)}-${encoding}"`;
  c.header('ETag', etag);
  c.header('X-Content-Type-Options', 'nosniff');
  if (file.encoded !== undefined) c.header('Vary', 'Accept-Encoding');
  if (encoding !== undefined) c.header('Content-Encoding', encoding);
  const ifNoneMatch = c.req.header('if-none-match');
  if (ifNoneMatch !== undefined && ifNoneMatch.split(',').some((tag) => tag.trim() === etag)) {
    return c.body(null, 304);
  }
  const bytes = encoding === undefined ? file.body : file.encoded![encoding];
  return c.body(bytes as Uint8Array<ArrayBuffer>, 200);
}

/** http on the customer's own machine, as the frame accepts it for fonts (development and test integrations). */
const LOOPBACK_SOURCES = 'http://localhost:* http://127.0.0.1:*';

/** What the frame document itself asks the browser to allow: its inline scripts and style elements, by hash. */
export interface FrameDocumentSources {
  scriptHashes: readonly string[];
  styleHashes: readonly string[];
}

/**
 * The frame's Content-Security-Policy. Nothing is allowed that is not named (`default-src 'none'`): scripts from
 * js_url and the document's own inline scripts by their hashes (the early-load script, frame/src/early-load.ts); the
 * document's own style element by its hash, and no other stylesheet (a merchant's font stylesheet reaches the frame
 * as text, of which only @font-face rules are used: frame/src/appearance.ts); images only as data: URLs (the UPI QR
 * code); fonts over https (the merchant's, whose files a font stylesheet names only once fetched), or from the
 * customer's own machine; requests only to `connectOrigins` (the deployment's API, which holds the vault, and the
 * origins the page declared for this mount: its customBackendUrl and font stylesheets). And no form submission: the
 * card inputs carry autofill names (cardnumber, cvc) in a form with no action, which a native submit would put in the
 * frame's URL.
 */
export function frameCsp(frameAncestors: readonly string[], document: FrameDocumentSources, connectOrigins: readonly string[]): string {
  const list = (sources: readonly string[]) => (sources.length > 0 ? sources.join(' ') : "'none'");
  return [
    "default-src 'none'",
    `script-src ${["'self'", ...document.scriptHashes].join(' ')}`,
    `style-src ${list(document.styleHashes)}`,
    'img-src data:',
    `font-src https: ${LOOPBACK_SOURCES}`,
    `connect-src ${list([...new Set(connectOrigins)])}`,
    `frame-ancestors ${list(frameAncestors)}`,
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
}

/** CSP hash sources (`'sha256-<base64>'`) of the contents of a document's elements `<tag>` without attributes. */
function inlineHashes(html: string, tag: 'script' | 'style'): string[] {
  return [...html.matchAll(new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`, 'g'))].map((match) => `'sha256-${createHash('sha256').update(match[1]!).digest('base64')}'`);
}

/** CSP hash sources of the inline scripts (`<script>` without attributes) of a document. */
export const inlineScriptHashes = (html: string): string[] => inlineHashes(html, 'script');

/** CSP hash sources of the style elements (`<style>` without attributes) of a document. */
export const inlineStyleHashes = (html: string): string[] => inlineHashes(html, 'style');

/** The origins a frame URL declares (protocol/frame-url.ts), or an ApiError naming what is wrong with them. */
export function declaredOrigins(values: readonly string[] | undefined): string[] | ApiError {
  const origins = values ?? [];
  if (origins.length > MAX_FRAME_CONNECT_ORIGINS) {
    return new ApiError('ERR_2003', `At most ${MAX_FRAME_CONNECT_ORIGINS} ${FRAME_CONNECT_PARAMETER} origins may be declared.`, { fieldName: FRAME_CONNECT_PARAMETER });
  }
  for (const origin of origins) {
    // Exactly an origin as the runtime writes it: nothing that could end a CSP source or directive.
    if (frameConnectOrigin(origin) !== origin) {
      return new ApiError('ERR_2003', `Each ${FRAME_CONNECT_PARAMETER} value must be an http(s) origin such as https://api.example.com.`, { fieldName: FRAME_CONNECT_PARAMETER });
    }
  }
  return [...origins];
}

/**
 * The runtime build a server serves: the script of dist/runtime/rail.js, as built (its precompressed siblings are
 * served too, and its hash is the build's on every deployment), and the archived releases staged beside it. Each is
 * read once; a missing build is looked for again on the next call.
 */
export class RuntimeBuild {
  readonly #script: CachedFile;

  constructor(private readonly deps: Pick<JsAppDeps, 'distDir' | 'publicJsUrl' | 'logger'>) {
    this.#script = new CachedFile([join(deps.distDir, 'runtime', 'rail.js')]);
  }

  /**
   * The current script's pinned URL and integrity, or undefined while it is not built. Only the script is read for
   * it, so the startup banner that prints them waits for neither the archived releases nor the frame (which took a
   * SQLite restart to 0.94-0.95x its wall time: docs/benchmarks-reading.md, seventeenth session).
   */
  async current(): Promise<RuntimeManifest['runtime'] | undefined> {
    const file = await this.#script.get();
    return file === undefined ? undefined : this.#pin(file);
  }

  /** The script with its manifest and the archived releases, or undefined while the script is not built. */
  readonly pinned = loadedOnce(() => this.#loadPinned());

  async #loadPinned(): Promise<PinnedRuntime | undefined> {
    const file = await this.#script.get();
    if (file === undefined) return undefined;
    const archived = await loadReleases(join(this.deps.distDir, RELEASES_DIR), this.deps.logger);
    const releases: RuntimeRelease[] = archived.map(({ entry }) => ({
      src: `${this.deps.publicJsUrl}/v1/rail.${entry.hash}.js`,
      integrity: entry.integrity,
      released: entry.released,
    }));
    const manifest: RuntimeManifest = { runtime: this.#pin(file), releases };
    return {
      file,
      fileName: scriptFileName(file),
      manifestJson: JSON.stringify(manifest),
      releases: new Map(archived.map(({ entry, file: bytes }) => [`rail.${entry.hash}.js`, bytes])),
    };
  }

  #pin(file: LoadedFile): RuntimeManifest['runtime'] {
    return { src: `${this.deps.publicJsUrl}/v1/${scriptFileName(file)}`, integrity: file.integrity };
  }
}

const scriptFileName = (file: LoadedFile) => `rail.${file.contentHash}.js`;

export function createJsApp(deps: JsAppDeps): Hono {
  const app = new Hono();
  const runtime = deps.runtime ?? new RuntimeBuild(deps);
  const frameHtml = new CachedFile([join(deps.distDir, 'frame', 'index.html')], { [API_BASE_URL_PLACEHOLDER]: escapeAttribute(deps.publicBaseUrl) });
  const configJson = JSON.stringify({ api_base_url: deps.publicBaseUrl } satisfies RuntimeConfig);
  const apiOrigin = new URL(deps.publicBaseUrl).origin;
  // The frame's CSP names its document's inline scripts and styles, so they are read from the loaded document (once).
  let frameDocument: { file: LoadedFile; sources: FrameDocumentSources } | undefined;
  const documentSources = (file: LoadedFile): FrameDocumentSources => {
    if (frameDocument?.file !== file) {
      const html = new TextDecoder().decode(file.body);
      frameDocument = { file, sources: { scriptHashes: inlineScriptHashes(html), styleHashes: inlineStyleHashes(html) } };
    }
    return frameDocument.sources;
  };
  // Loaded once the start is over; a missing build is retried on request.
  loadAfterStart(runtime.pinned);
  loadAfterStart(frameHtml.get);

  app.get('/health', (c) =>
    deps.isReady === undefined || deps.isReady()
      ? c.json({ status: 'ok' as const }, 200)
      : errorResponse(c, new ApiError('ERR_5006', 'The service is shutting down; retry.')),
  );

  /**
   * The runtime routes' answer when the build is missing or the asked-for hash is not this build's: never cached,
   * so a CDN does not keep a 404 for a hash that a newer instance of a rolling deployment serves.
   */
  const runtimeMiss = (c: Context, error: ApiError) => {
    c.header('Cache-Control', 'no-store');
    return errorResponse(c, error);
  };
  /** Runs `serve` with the loaded runtime, or answers ERR_5007 while it is not built. */
  const withRuntime = (serve: (c: Context, current: PinnedRuntime) => Response) => async (c: Context) => {
    const current = await runtime.pinned();
    return current === undefined ? runtimeMiss(c, RUNTIME_NOT_BUILT()) : serve(c, current);
  };

  const serveRuntime = withRuntime((c, current) => serveFile(c, current.file, STABLE_URL_HEADERS));
  app.get('/v1/', serveRuntime);
  app.get('/v1', serveRuntime);

  // This deployment's API base_url, for the runtime's own calls (retrievePayment) when the page set no
  // customBackendUrl. Not part of the pinned bytes, so it may follow the deployment.
  app.get('/v1/config.json', (c) => {
    c.header('Content-Type', 'application/json');
    c.header('Cache-Control', STABLE_URL_CACHE);
    c.header('Access-Control-Allow-Origin', '*');
    c.header('Cross-Origin-Resource-Policy', 'cross-origin');
    c.header('X-Content-Type-Options', 'nosniff');
    return c.body(configJson, 200);
  });

  app.get(
    '/v1/manifest.json',
    withRuntime((c, current) => {
      c.header('Content-Type', 'application/json');
      c.header('Cache-Control', 'no-cache');
      c.header('X-Content-Type-Options', 'nosniff');
      return c.body(current.manifestJson, 200);
    }),
  );

  app.get(
    '/v1/:fileName{rail[^/]*\\.js}',
    withRuntime((c, current) => {
      const fileName = c.req.param('fileName') ?? '';
      // The build this server holds, or an archived release (a page pinned to it keeps working after a deployment).
      const file = fileName === current.fileName ? current.file : current.releases.get(fileName);
      if (file === undefined) {
        return runtimeMiss(c, new ApiError('ERR_2006', `No runtime script ${fileName} on this server; /v1/manifest.json names the current one and the releases.`));
      }
      return serveFile(c, file, CONTENT_ADDRESSED_HEADERS);
    }),
  );

  app.get('/frame', (c) => c.redirect('/frame/', 301));
  app.get('/frame/', async (c) => {
    const declared = declaredOrigins(c.req.queries(FRAME_CONNECT_PARAMETER));
    if (declared instanceof ApiError) return errorResponse(c, declared);
    const file = await frameHtml.get();
    if (file === undefined) return errorResponse(c, NOT_BUILT('hosted frame (dist/frame/index.html)'));
    return serveFile(c, file, {
      'Content-Type': 'text/html; charset=utf-8',
      'Cache-Control': 'no-cache',
      'Content-Security-Policy': frameCsp(deps.frameAncestors, documentSources(file), [apiOrigin, ...declared]),
      'Referrer-Policy': 'no-referrer',
    });
  });

  // Assets have content-hashed names, so each is read (with its encodings) once and kept.
  const assets = new Map<string, Promise<LoadedFile | undefined>>();
  app.get('/frame/assets/*', async (c) => {
    const segments = safeSegments(c.req.path.slice('/frame/assets/'.length));
    if (segments === undefined) return errorResponse(c, new ApiError('ERR_2006', 'No such frame asset.'));
    const key = segments.join('/');
    let pending = assets.get(key);
    if (pending === undefined) {
      pending = loadBuiltFile(join(deps.distDir, 'frame', 'assets', ...segments));
      assets.set(key, pending);
    }
    const file = await pending;
    if (file === undefined) {
      assets.delete(key);
      return errorResponse(c, new ApiError('ERR_2006', 'No such frame asset.'));
    }
    return serveFile(c, file, {
      'Content-Type': contentTypeFor(segments[segments.length - 1] ?? ''),
      'Cache-Control': 'public, max-age=31536000, immutable',
      'Cross-Origin-Resource-Policy': 'same-origin',
    });
  });

  app.notFound(createNotFoundHandler(app));
  app.onError(createErrorHandler(deps.logger));
  return app;
}
