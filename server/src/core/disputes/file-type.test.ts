import { describe, expect, test } from 'vitest';
import { sampleFile } from '../../test-support/multipart';
import { detectContentType } from './file-type';

describe('detectContentType (magic numbers)', () => {
  test.each([
    ['pdf', 'application/pdf'],
    ['png', 'image/png'],
    ['jpeg', 'image/jpeg'],
    ['gif', 'image/gif'],
    ['tiff', 'image/tiff'],
    ['webp', 'image/webp'],
  ] as const)('%s is %s', (kind, type) => {
    expect(detectContentType(sampleFile(kind))).toBe(type);
  });

  test('big-endian TIFF and GIF87a are recognised', () => {
    expect(detectContentType(Uint8Array.from([0x4d, 0x4d, 0x00, 0x2a, 1, 2]))).toBe('image/tiff');
    expect(detectContentType(Buffer.from('GIF87a......'))).toBe('image/gif');
  });

  test('plain text, an empty file, a RIFF that is not WebP and a cut signature have no type', () => {
    expect(detectContentType(sampleFile('text'))).toBeNull();
    expect(detectContentType(new Uint8Array())).toBeNull();
    expect(detectContentType(Buffer.from('RIFF\0\0\0\0WAVEfmt '))).toBeNull();
    expect(detectContentType(Uint8Array.from([0x89, 0x50, 0x4e]))).toBeNull();
  });
});
