/** A multipart/form-data body built by hand, for the upload suites (so a body can also be cut short on purpose). */
export type MultipartPart =
  | { name: string; value: string }
  | {
      name: string;
      /** Sent as `filename="…"` (UTF-8); omitted when undefined. */
      filename?: string;
      /** Sent raw as `filename*=…` (RFC 5987, for example `UTF-8''a%00b.pdf`). */
      filenameStar?: string;
      contentType: string;
      bytes: Uint8Array;
    };

export const MULTIPART_BOUNDARY = 'rail-test-boundary-7MA4YWxkTrZu0gW';

export function multipartBody(parts: readonly MultipartPart[], boundary = MULTIPART_BOUNDARY): { body: Buffer; contentType: string } {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    if ('value' in part) {
      chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"\r\n\r\n${part.value}\r\n`));
    } else {
      chunks.push(
        Buffer.from(
          `--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"` +
            (part.filename === undefined ? '' : `; filename="${part.filename}"`) +
            (part.filenameStar === undefined ? '' : `; filename*=${part.filenameStar}`) +
            `\r\nContent-Type: ${part.contentType}\r\n\r\n`,
        ),
        Buffer.from(part.bytes),
        Buffer.from('\r\n'),
      );
    }
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}

/** The first bytes of files of each accepted format, padded to `size` bytes. */
export function sampleFile(kind: 'png' | 'pdf' | 'jpeg' | 'gif' | 'tiff' | 'webp' | 'text', size = 64): Uint8Array {
  const heads: Record<typeof kind, number[]> = {
    png: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a],
    pdf: [...Buffer.from('%PDF-1.7\n')],
    jpeg: [0xff, 0xd8, 0xff, 0xe0],
    gif: [...Buffer.from('GIF89a')],
    tiff: [0x49, 0x49, 0x2a, 0x00],
    webp: [...Buffer.from('RIFF'), 0x24, 0, 0, 0, ...Buffer.from('WEBPVP8 ')],
    text: [...Buffer.from('Dear issuer, the customer received the goods.\n')],
  };
  const bytes = new Uint8Array(Math.max(size, heads[kind].length));
  bytes.set(heads[kind]);
  for (let i = heads[kind].length; i < bytes.length; i++) bytes[i] = kind === 'text' ? 0x61 : i % 251;
  return bytes;
}
