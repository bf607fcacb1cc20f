/**
 * Streamed multipart/form-data uploads (POST /files, PUT /disputes/evidence). The body is never buffered whole: the
 * one `file` part is streamed into the file store as it arrives (core/disputes/stage-upload.ts), the form fields
 * are collected beside it. Bounds: the whole body at FILE_LIMITS.maxFileBytes + multipartOverheadBytes (ERR_2009,
 * from Content-Length before reading, or while counting), the file at maxFileBytes (ERR_2009), one file, a few
 * short fields, the file name (storedFileName). A truncated or malformed body answers ERR_2010. Whatever fails, staged
 * bytes are removed.
 */
import { createRequire } from 'node:module';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as NodeWebReadableStream } from 'node:stream/web';
import type busboy from 'busboy';
import type { Context } from 'hono';
import { createMiddleware } from 'hono/factory';
import type { z } from 'zod';
import { FILE_LIMITS } from '../../../../../protocol/api/disputes';
import type { Scope } from '../../../kernel/store-types';
import type { CoreDeps } from '../../../core/shared/deps';
import { ApiError } from '../../../core/shared/errors';
import { discardStagedUpload, stageUpload, type StagedFile } from '../../../core/disputes/stage-upload';
import { type AppEnv, coreDeps } from '../../env';
import { fieldPath, validationError } from '../../error-handler';
import { isWellFormed } from '../../middleware/json-body';

/** The largest multipart body an upload route reads. */
export const UPLOAD_BODY_LIMIT_BYTES = FILE_LIMITS.maxFileBytes + FILE_LIMITS.multipartOverheadBytes;

const FIELD_VALUE_MAX = 1024;

/** C0 and C1 control characters (NUL included, which PostgreSQL text cannot hold). */
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f-\u009f]/;

/**
 * The part's filename as stored: busboy has already cut it to its last path segment; an empty one is no name. A name
 * with a control character or longer than FILE_LIMITS.fileNameMax is refused (ERR_2003, field file).
 */
function storedFileName(filename: string | undefined): string | null {
  if (filename === undefined || filename === '') return null;
  if (CONTROL_CHARACTER.test(filename)) throw new ApiError('ERR_2003', 'The file name may not contain control characters.', { fieldName: 'file' });
  // A lone surrogate (RFC 5987 in UTF-16LE, which busboy decodes) is not text a store keeps as sent (json-body.ts).
  if (!isWellFormed(filename)) throw new ApiError('ERR_2003', 'The file name must be well-formed Unicode (no lone UTF-16 surrogate).', { fieldName: 'file' });
  if ([...filename].length > FILE_LIMITS.fileNameMax) {
    throw new ApiError('ERR_2003', `The file name is longer than ${FILE_LIMITS.fileNameMax} characters.`, { fieldName: 'file' });
  }
  return filename;
}

/** The longest block of part headers whose charset is read (busboy reads at most 16 KiB of them). */
const PART_HEADERS_MAX = 16 * 1024;
const HEADERS_END = Buffer.from('\r\n\r\n');
/** A charset label worth repeating in a message (the IANA names are tokens of these characters). */
const CHARSET_LABEL = /^[A-Za-z0-9._:+-]{1,40}$/;

/**
 * Passes the body on unchanged, noting the charset each form field declares (`Content-Type: text/plain;
 * charset=…` in its part headers). busboy decodes UTF-8, Latin-1, UTF-16LE and base64 only, and hands the value of a
 * field in any other charset over as undefined, without the charset's name; this names it in the refusal.
 */
class DeclaredCharsets extends Transform {
  readonly byField = new Map<string, string>();
  #carry: Buffer = Buffer.alloc(0);

  constructor(private readonly delimiter: Buffer) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: (error?: Error | null, data?: Buffer) => void): void {
    const data = this.#carry.length === 0 ? chunk : Buffer.concat([this.#carry, chunk]);
    let scanFrom = 0;
    let unfinished: number | undefined;
    for (;;) {
      const at = data.indexOf(this.delimiter, scanFrom);
      if (at === -1) break;
      const headersStart = at + this.delimiter.length;
      const headersEnd = data.indexOf(HEADERS_END, headersStart);
      if (headersEnd === -1) {
        // The headers go on in the next chunk: keep them (unless longer than any that are read).
        if (data.length - at <= PART_HEADERS_MAX) unfinished = at;
        break;
      }
      if (headersEnd - headersStart <= PART_HEADERS_MAX) this.#note(data.toString('latin1', headersStart, headersEnd));
      scanFrom = headersEnd + HEADERS_END.length;
    }
    // A delimiter may begin in the last bytes: they are looked at again with the next chunk.
    this.#carry = Buffer.from(data.subarray(unfinished ?? Math.max(scanFrom, data.length - (this.delimiter.length - 1))));
    done(null, chunk);
  }

  #note(headers: string): void {
    let name: string | undefined;
    let charset: string | undefined;
    for (const line of headers.split('\r\n')) {
      const [header, ...rest] = line.split(':');
      const value = rest.join(':');
      if (/^\s*content-disposition\s*$/i.test(header ?? '')) name = /(?:^|;)\s*name\s*=\s*"([^"]*)"/i.exec(value)?.[1] ?? /(?:^|;)\s*name\s*=\s*([^";\s]+)/i.exec(value)?.[1];
      else if (/^\s*content-type\s*$/i.test(header ?? '')) charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(value)?.[1];
    }
    if (name !== undefined && charset !== undefined) this.byField.set(name, charset);
  }
}

/** The delimiter that opens each part (`--boundary` and its line end), or undefined without a boundary. */
function partDelimiter(contentType: string): Buffer | undefined {
  const match = /;\s*boundary\s*=\s*(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  const boundary = match?.[1] ?? match?.[2];
  return boundary === undefined ? undefined : Buffer.from(`--${boundary}\r\n`, 'latin1');
}

function bodyTooLarge(): ApiError {
  return new ApiError('ERR_2009', `The upload body is larger than the limit of ${UPLOAD_BODY_LIMIT_BYTES} bytes.`);
}

function malformed(): ApiError {
  return new ApiError('ERR_2010', 'The multipart/form-data body is malformed or truncated.');
}

/**
 * The upload routes' own body limit (the app's 256 KiB limit skips them; families/disputes.ts): refuses a declared
 * Content-Length beyond the limit before anything is read, and counts the bytes of the stream so that a body without
 * (or lying about) its length is stopped at the limit, whoever reads it (the Idempotency-Key fingerprint or the
 * multipart parser). Runs before authentication.
 */
export const uploadBodyLimit = createMiddleware<AppEnv>(async (c, next) => {
  const declared = c.req.header('content-length');
  if (declared !== undefined && Number(declared) > UPLOAD_BODY_LIMIT_BYTES) throw bodyTooLarge();
  const body = c.req.raw.body;
  if (body !== null) {
    let seen = 0;
    const counted = body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          seen += chunk.byteLength;
          if (seen > UPLOAD_BODY_LIMIT_BYTES) controller.error(bodyTooLarge());
          else controller.enqueue(chunk);
        },
      }),
    );
    c.req.raw = new Request(c.req.raw, { body: counted, duplex: 'half' } as RequestInit);
  }
  await next();
});

/** The body's bytes as a Node stream: the cached bytes when the Idempotency-Key fingerprint already read them. */
async function bodySource(c: Context<AppEnv>): Promise<Readable> {
  const cached = (c.req.bodyCache as { arrayBuffer?: Promise<ArrayBuffer> }).arrayBuffer;
  if (cached !== undefined) return Readable.from([Buffer.from(await cached)]);
  const body = c.req.raw.body;
  if (body === null) return Readable.from([]);
  return Readable.fromWeb(body as unknown as NodeWebReadableStream<Uint8Array>);
}

export interface UploadForm<Fields> {
  fields: Fields;
  file: StagedFile;
}

/**
 * Reads an upload: its form fields, validated by `schema` (strict: an unknown field is ERR_2004), and its one
 * `file` part, staged in the file store. Staged bytes are removed when anything about the request fails.
 */
export async function readUploadForm<S extends z.ZodType>(c: Context<AppEnv>, deps: CoreDeps, scope: Scope, schema: S): Promise<UploadForm<z.infer<S>>> {
  const contentType = c.req.header('content-type') ?? '';
  if (!/^multipart\/form-data\s*(;|$)/i.test(contentType)) {
    throw new ApiError('ERR_2008', 'Send uploads as multipart/form-data with a file part named file.');
  }
  let parser: busboy.Busboy;
  try {
    // Loaded on the first upload rather than at start (the server's start-up time; docs/benchmarks.md).
    const startParser = createRequire(import.meta.url)('busboy') as typeof busboy;
    parser = startParser({
      headers: { 'content-type': contentType },
      // Browsers send a filename's UTF-8 bytes as they are; busboy's default reads them as latin1.
      defParamCharset: 'utf8',
      limits: { files: 1, fields: 10, parts: 12, fieldSize: FIELD_VALUE_MAX, fieldNameSize: 100, fileSize: FILE_LIMITS.maxFileBytes + 1 },
    });
  } catch {
    throw malformed();
  }

  const source = await bodySource(c);
  const delimiter = partDelimiter(contentType);
  const charsets = delimiter === undefined ? undefined : new DeclaredCharsets(delimiter);
  // No prototype: a field named __proto__ or constructor is a field like any other (the strict schema refuses it).
  const fields: Record<string, string> = Object.create(null) as Record<string, string>;
  let failure: ApiError | undefined;
  let staging: Promise<StagedFile> | undefined;
  const fail = (error: ApiError): void => {
    failure ??= error;
    source.destroy();
  };

  parser.on('field', (name: string | undefined, value, info) => {
    if (name === undefined || name === '') {
      fail(new ApiError('ERR_2010', 'Every part of the body needs a name (Content-Disposition: form-data; name="…").'));
      return;
    }
    const field = fieldPath([name]);
    // A part without a filename is a form field (RFC 7578 §4.2), read as text: it cannot carry the file's bytes.
    if (name === 'file') fail(new ApiError('ERR_2010', 'The file part needs a filename: Content-Disposition: form-data; name="file"; filename="…".', { fieldName: 'file' }));
    else if (value === undefined) {
      // busboy could not decode the value: its part declared a charset busboy does not read.
      const declared = charsets?.byField.get(name);
      const what = declared !== undefined && CHARSET_LABEL.test(declared) ? `declares charset ${declared}, which` : 'is in a charset that';
      fail(new ApiError('ERR_2003', `The form field ${field} ${what} Rail cannot decode; send form fields in UTF-8.`, { fieldName: field }));
    } else if (info.valueTruncated) fail(new ApiError('ERR_2003', `The form field ${field} is longer than ${FIELD_VALUE_MAX} characters.`, { fieldName: field }));
    else if (Object.hasOwn(fields, name)) fail(new ApiError('ERR_2010', `The form field ${field} appears more than once.`, { fieldName: field }));
    else fields[name] = value;
  });
  parser.on('file', (name: string | undefined, stream, info) => {
    if (name !== 'file' || staging !== undefined) {
      stream.resume();
      fail(new ApiError('ERR_2010', 'The body may hold one file part, named file.', name ? { fieldName: fieldPath([name]) } : {}));
      return;
    }
    // The store may start reading after an await; an error that busboy puts on the stream before then (a truncated
    // body) must not be an uncaught 'error' event. The parse failure is reported below either way.
    stream.on('error', () => undefined);
    let fileName: string | null;
    try {
      fileName = storedFileName(info.filename);
    } catch (error) {
      stream.resume();
      fail(error as ApiError);
      return;
    }
    staging = stageUpload(coreDeps(c, deps), scope, stream, fileName);
    staging.catch((error: unknown) => {
      stream.resume();
      if (error instanceof ApiError) fail(error);
    });
  });
  for (const limit of ['partsLimit', 'filesLimit', 'fieldsLimit'] as const) {
    parser.on(limit, () => fail(new ApiError('ERR_2010', 'The body has more parts than an upload takes.')));
  }

  let parseFailed = false;
  try {
    await (charsets === undefined ? pipeline(source, parser) : pipeline(source, charsets, parser));
  } catch (error) {
    parseFailed = true;
    if (error instanceof ApiError) failure ??= error;
  }
  let staged: StagedFile | undefined;
  if (staging !== undefined) {
    try {
      staged = await staging;
    } catch (error) {
      // The parser stopped mid-file (truncated body, limit): the store removed what it had; say why.
      if (error instanceof ApiError) failure ??= error;
      else if (!parseFailed && failure === undefined) throw error;
    }
  }
  if (parseFailed) failure ??= malformed();
  try {
    if (failure !== undefined) throw failure;
    const parsed = schema.safeParse(fields);
    if (!parsed.success) throw validationError(parsed.error.issues, fields, 'form');
    if (staged === undefined) throw new ApiError('ERR_2001', 'Missing required form field: file.', { fieldName: 'file' });
    return { fields: parsed.data, file: staged };
  } catch (error) {
    if (staged !== undefined) await discardStagedUpload(coreDeps(c, deps), scope, staged);
    throw error;
  }
}
