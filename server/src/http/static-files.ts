/**
 * Files the server hands out as they are (built client bundles, the demo page): read once, placeholders
 * replaced once, hashed once for a strong ETag, an SRI integrity value and a content hash, and compressed once
 * (brotli and gzip: the build's precompressed siblings when the bytes are the built ones, else compressed at
 * load). A file missing at startup is looked for again on the next request (the build may finish after the server
 * starts) and cached once found.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip as gzipCallback } from 'node:zlib';

export type ContentEncoding = 'br' | 'gzip';

export interface LoadedFile {
  body: Uint8Array;
  /** Strong ETag of the served bytes. */
  etag: string;
  /** Subresource Integrity value of the served bytes: `sha384-<base64>`. */
  integrity: string;
  /** Short hex hash of the served bytes, for content-addressed file names. */
  contentHash: string;
  /** The same bytes compressed (absent for formats that do not compress, such as images). */
  encoded?: Record<ContentEncoding, Uint8Array>;
}

const COMPRESSIBLE = /\.(js|mjs|css|html|svg|json|map|txt)$/;

const brotli = promisify(brotliCompress);
const gzip = promisify(gzipCallback);

/**
 * Compressed on libuv's thread pool, not the event loop: brotli at quality 11 takes tens of milliseconds for the
 * runtime, which the server's start (it loads the runtime for its manifest) would otherwise wait for on one core.
 */
export async function compress(bytes: Uint8Array): Promise<Record<ContentEncoding, Uint8Array>> {
  const [br, gz] = await Promise.all([
    brotli(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length } }),
    gzip(bytes, { level: 9 }),
  ]);
  return { br, gzip: gz };
}

/** The build's .br and .gz beside `path` (scripts/compress-dist.mjs), or undefined when either is missing. */
async function precompressed(path: string): Promise<Record<ContentEncoding, Uint8Array> | undefined> {
  try {
    const [br, gzip] = await Promise.all([readFile(`${path}.br`), readFile(`${path}.gz`)]);
    return { br: new Uint8Array(br), gzip: new Uint8Array(gzip) };
  } catch {
    return undefined;
  }
}

/** Loads a built file as it is, with its encodings: the build's, else compressed now (once). */
export async function loadBuiltFile(path: string): Promise<LoadedFile | undefined> {
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch {
    return undefined;
  }
  const body = new Uint8Array(bytes);
  const encoded = COMPRESSIBLE.test(path) ? ((await precompressed(path)) ?? (await compress(body))) : undefined;
  return { ...loadedFile(body), ...(encoded ? { encoded } : {}) };
}

/**
 * The encoding to answer with: brotli, then gzip, when the client accepts them (a `q=0` refuses one); identity
 * otherwise.
 */
export function negotiateEncoding(acceptEncoding: string | undefined): ContentEncoding | undefined {
  if (acceptEncoding === undefined) return undefined;
  const accepted = new Map<string, number>();
  for (const part of acceptEncoding.split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((param) => /^\s*q=([\d.]+)\s*$/.exec(param)?.[1]).find((value) => value !== undefined);
    if (name) accepted.set(name, q === undefined ? 1 : Number(q));
  }
  const wildcard = accepted.get('*');
  const allows = (name: ContentEncoding) => (accepted.get(name) ?? wildcard ?? 0) > 0;
  if (allows('br')) return 'br';
  if (allows('gzip')) return 'gzip';
  return undefined;
}

export function strongEtag(bytes: Uint8Array): string {
  return `"${createHash('sha256').update(bytes).digest('base64url')}"`;
}

/** 64 bits of the SHA-384 digest tell builds apart in a URL; browsers check the full digest (the integrity value). */
const CONTENT_HASH_BYTES = 8;

function loadedFile(body: Uint8Array): LoadedFile {
  const sha384 = createHash('sha384').update(body).digest();
  return {
    body,
    etag: strongEtag(body),
    integrity: `sha384-${sha384.toString('base64')}`,
    contentHash: sha384.subarray(0, CONTENT_HASH_BYTES).toString('hex'),
  };
}

/**
 * How long after a listener is built the files it serves are loaded ahead of their first request (loadAfterStart):
 * those whose bytes are replaced at run time (the frame document, the demo page) are compressed then, brotli at
 * quality 11, some 20 ms of CPU that a start on two cores spent before its first 200 (docs/benchmarks-reading.md,
 * forty-second session).
 */
const LOAD_AFTER_START_MS = 1_000;

/** Runs `load` once the start is over; a request before then loads the file itself (loadedOnce shares that run). */
export function loadAfterStart(load: () => Promise<unknown>): void {
  setTimeout(() => void load().catch(() => undefined), LOAD_AFTER_START_MS).unref();
}

/**
 * `load`, run once and its value kept: callers while it runs (a start's own, the first requests) share that run,
 * and a run that found nothing (undefined) or failed is tried again by the next call.
 */
export function loadedOnce<T>(load: () => Promise<T | undefined>): () => Promise<T | undefined> {
  let loaded: T | undefined;
  let loading: Promise<T | undefined> | undefined;
  return () => {
    if (loaded !== undefined) return Promise.resolve(loaded);
    loading ??= load().then(
      (value) => {
        loading = undefined;
        loaded = value;
        return value;
      },
      (error: unknown) => {
        loading = undefined;
        throw error;
      },
    );
    return loading;
  };
}

export class CachedFile {
  constructor(
    private readonly candidates: readonly string[],
    private readonly replacements: Readonly<Record<string, string>> = {},
  ) {}

  /** The file's served bytes, or undefined when no candidate path exists (yet: the next call looks again). */
  readonly get = loadedOnce(() => this.#load());

  async #load(): Promise<LoadedFile | undefined> {
    for (const path of this.candidates) {
      let text: string;
      try {
        text = await readFile(path, 'utf8');
      } catch {
        continue;
      }
      const built = text;
      for (const [placeholder, value] of Object.entries(this.replacements)) text = text.replaceAll(placeholder, value);
      const body = new TextEncoder().encode(text);
      // The build's precompressed bytes fit only when nothing was replaced.
      const encoded = (text === built ? await precompressed(path) : undefined) ?? (await compress(body));
      return { ...loadedFile(body), encoded };
    }
    return undefined;
  }
}

const CONTENT_TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
  '.json': 'application/json',
  '.map': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.webp': 'image/webp',
  '.gif': 'image/gif',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.wasm': 'application/wasm',
  '.txt': 'text/plain; charset=utf-8',
};

export function contentTypeFor(fileName: string): string {
  const dot = fileName.lastIndexOf('.');
  return (dot >= 0 ? CONTENT_TYPES[fileName.slice(dot).toLowerCase()] : undefined) ?? 'application/octet-stream';
}

/** Path segments of an asset request: plain names only (no `..`, no empty segments, no encoded separators). */
export function safeSegments(relative: string): string[] | undefined {
  const segments = relative.split('/');
  const ok = segments.length > 0 && segments.every((segment) => /^[A-Za-z0-9_-][A-Za-z0-9._-]*$/.test(segment) && segment !== '..');
  return ok ? segments : undefined;
}
