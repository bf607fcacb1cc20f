/**
 * The content type of an upload, from its first bytes (magic numbers), never from the declared part type. Formats
 * accepted as dispute evidence: PDF, PNG, JPEG, GIF, TIFF, WebP. Anything else (plain text, for instance) has no
 * recognisable signature: null, which the upload answers with 'File content type not found'.
 */

/** How many leading bytes detection reads. */
export const SIGNATURE_BYTES = 16;

const startsWith = (bytes: Uint8Array, signature: readonly number[], offset = 0): boolean =>
  bytes.length >= offset + signature.length && signature.every((byte, i) => bytes[offset + i] === byte);

const ascii = (text: string): number[] => [...text].map((char) => char.charCodeAt(0));

const SIGNATURES: ReadonlyArray<{ type: string; matches: (bytes: Uint8Array) => boolean }> = [
  { type: 'application/pdf', matches: (b) => startsWith(b, ascii('%PDF-')) },
  { type: 'image/png', matches: (b) => startsWith(b, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]) },
  { type: 'image/jpeg', matches: (b) => startsWith(b, [0xff, 0xd8, 0xff]) },
  { type: 'image/gif', matches: (b) => startsWith(b, ascii('GIF87a')) || startsWith(b, ascii('GIF89a')) },
  { type: 'image/tiff', matches: (b) => startsWith(b, [0x49, 0x49, 0x2a, 0x00]) || startsWith(b, [0x4d, 0x4d, 0x00, 0x2a]) },
  { type: 'image/webp', matches: (b) => startsWith(b, ascii('RIFF')) && startsWith(b, ascii('WEBP'), 8) },
];

/** The detected content type, or null when the bytes carry no accepted signature. */
export function detectContentType(head: Uint8Array): string | null {
  return SIGNATURES.find((signature) => signature.matches(head))?.type ?? null;
}
