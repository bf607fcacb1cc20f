import type { IncomingMessage } from 'node:http';
import type { Context } from 'hono';

/**
 * The request body, read once and kept in Hono's body cache for every later reader (c.req.text/json/arrayBuffer,
 * the multipart parser). Read through Hono, the Node adapter first builds a Web Request around Node's
 * IncomingMessage (an AbortController, a Web stream over the socket, undici's body mixin), and a text read after a
 * bytes read goes through a Response and another stream; per API call that was more CPU than parsing and
 * validating the body. So, when the request is still the adapter's own (not replaced by a Web Request: the
 * uploads' counted stream, the limit of a body sent without Content-Length) and nothing has read its stream yet,
 * the bytes come straight from the IncomingMessage. The result is the same bytes, and the same text:
 * TextDecoder decodes as Request.text() does (UTF-8, invalid sequences replaced, a leading BOM dropped).
 */
interface BodyCache {
  arrayBuffer?: Promise<ArrayBuffer>;
  text?: Promise<string>;
}

/** The IncomingMessage behind the request when reading it directly is safe, else undefined. */
function unreadIncoming(c: Context): IncomingMessage | undefined {
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  if (incoming === undefined || typeof incoming.on !== 'function') return undefined;
  // A Web Request put in place of the adapter's (whose prototype sits between it and Request.prototype).
  if (Object.getPrototypeOf(c.req.raw) === Request.prototype) return undefined;
  if (incoming.readableDidRead || incoming.readableEnded || incoming.listenerCount('data') > 0) return undefined;
  return incoming;
}

/** Node's shape for a body the client did not finish sending (the error handler answers ERR_2012 for it). */
const aborted = () => Object.assign(new Error('aborted'), { code: 'ECONNRESET' });

function readAll(incoming: IncomingMessage): Promise<Buffer> {
  return new Promise((resolveRead, rejectRead) => {
    // Destroyed before this read began (the client left while the request waited on something else): its 'error'
    // and 'close' have been emitted already and will not come again.
    if (incoming.destroyed || incoming.errored) {
      rejectRead(aborted());
      return;
    }
    const chunks: Buffer[] = [];
    let length = 0;
    let ended = false;
    incoming.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      length += chunk.length;
    });
    incoming.once('end', () => {
      ended = true;
      resolveRead(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, length));
    });
    incoming.once('error', rejectRead);
    incoming.once('close', () => {
      // Node emits 'error' (aborted, ECONNRESET) first when the client leaves; this only backs it up, in its shape
      // (the error handler answers ERR_2012 for it, as for Hono's own reads).
      if (!ended) rejectRead(aborted());
    });
  });
}

/** Per request, the body as read straight from its IncomingMessage: Node's own buffer, not copied. */
const directReads = new WeakMap<object, Promise<Buffer>>();

/**
 * The body read straight from the IncomingMessage, once per request; undefined when it must be read through Hono
 * (unreadIncoming says when, or another reader went through Hono first). Hono's own readers (c.req.arrayBuffer,
 * formData, ...) find the same bytes in its body cache as `arrayBuffer`, copied out of Node's buffer into an
 * ArrayBuffer of their own only when one asks: Rail's readers take the buffer or its text, and the copy (a new
 * ArrayBuffer) was some 4 us of a keyed call under load.
 */
function directRead(c: Context): Promise<Buffer> | undefined {
  const started = directReads.get(c.req);
  if (started !== undefined) return started;
  const cache = c.req.bodyCache as BodyCache;
  if (Object.keys(cache).length !== 0) return undefined;
  const incoming = unreadIncoming(c);
  if (incoming === undefined) return undefined;
  const read = readAll(incoming);
  directReads.set(c.req, read);
  let copied: Promise<ArrayBuffer> | undefined;
  Object.defineProperty(cache, 'arrayBuffer', {
    configurable: true,
    enumerable: true,
    get: () => (copied ??= read.then((all) => all.buffer.slice(all.byteOffset, all.byteOffset + all.byteLength) as ArrayBuffer)),
    set: (value: Promise<ArrayBuffer>) => Object.defineProperty(cache, 'arrayBuffer', { value, writable: true, enumerable: true, configurable: true }),
  });
  return read;
}

/** The body's bytes (also in Hono's body cache as `arrayBuffer`). */
export async function requestBodyBytes(c: Context): Promise<Uint8Array> {
  return (await directRead(c)) ?? new Uint8Array(await c.req.arrayBuffer());
}

const utf8 = new TextDecoder();

/** The body as text (cached as Hono's `text`, which c.req.json() parses), decoded from the bytes read directly. */
export async function requestBodyText(c: Context): Promise<string> {
  const cache = c.req.bodyCache as BodyCache;
  if (cache.text === undefined) {
    const read = directRead(c) ?? cache.arrayBuffer;
    if (read !== undefined) cache.text = read.then((bytes: Uint8Array | ArrayBuffer) => utf8.decode(bytes));
  }
  return c.req.text();
}

/** The body read as JSON: empty (blank text), the parsed value, or not JSON at all. */
export type JsonBody = { kind: 'empty' } | { kind: 'value'; value: unknown } | { kind: 'invalid' };

const parsedBodies = new WeakMap<object, Promise<JsonBody>>();

/**
 * The body parsed as JSON once per request, for every reader that wants it parsed (the Idempotency-Key
 * fingerprint, then parseJsonBody): each used to run JSON.parse over the same text. Each reader decides what an
 * empty or invalid body means to it. The value is shared: readers must not change it.
 */
export function requestBodyJson(c: Context): Promise<JsonBody> {
  let parsed = parsedBodies.get(c.req);
  if (parsed === undefined) {
    parsed = requestBodyText(c).then(parseJsonText);
    parsedBodies.set(c.req, parsed);
  }
  return parsed;
}

function parseJsonText(text: string): JsonBody {
  if (text.trim() === '') return { kind: 'empty' };
  try {
    return { kind: 'value', value: JSON.parse(text) as unknown };
  } catch {
    return { kind: 'invalid' };
  }
}
