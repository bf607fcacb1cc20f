/**
 * Files the server hands out as they are (built client bundles, the demo page): read once, placeholders
 * replaced once, hashed once for a strong ETag, an SRI integrity value and a content hash. A file missing at
 * startup is looked for again on the next request (the build may finish after the server starts) and cached once
 * found.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';

export interface LoadedFile {
  body: Uint8Array;
  /** Strong ETag of the served bytes. */
  etag: string;
  /** Subresource Integrity value of the served bytes: `sha384-<base64>`. */
  integrity: string;
  /** Short hex hash of the served bytes, for content-addressed file names. */
  contentHash: string;
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

export class CachedFile {
  #loaded: LoadedFile | undefined;

  constructor(
    private readonly candidates: readonly string[],
    private readonly replacements: Readonly<Record<string, string>> = {},
  ) {}

  /** The file's served bytes, or undefined when no candidate path exists (yet). */
  async get(): Promise<LoadedFile | undefined> {
    if (this.#loaded) return this.#loaded;
    for (const path of this.candidates) {
      let text: string;
      try {
        text = await readFile(path, 'utf8');
      } catch {
        continue;
      }
      for (const [placeholder, value] of Object.entries(this.replacements)) text = text.replaceAll(placeholder, value);
      this.#loaded = loadedFile(new TextEncoder().encode(text));
      return this.#loaded;
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
