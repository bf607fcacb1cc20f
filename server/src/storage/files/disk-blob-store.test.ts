/**
 * The bytes of uploads on disk (SQLite): a write is answered only once the bytes and their name are on disk, as every
 * other acknowledged write (docs/reliability.md, invariant 1); a failed sync answers nothing and leaves nothing.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { DiskFileBlobStore, type SyncPath } from './disk-blob-store';

const scope = { accountId: 'acc_test', mode: 'test' as const };

async function* chunks(...parts: string[]): AsyncGenerator<Uint8Array> {
  for (const part of parts) yield Buffer.from(part);
}

describe('DiskFileBlobStore', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'rail-blobs-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  test('a write is answered only after the whole file and then its folder are synced', async () => {
    const synced: { path: string; bytes: string | null; exists: boolean }[] = [];
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let firstSync!: () => void;
    const syncing = new Promise<string>((resolve) => (firstSync = () => resolve('syncing')));
    const sync: SyncPath = async (path) => {
      synced.push({ path, bytes: path.endsWith('.part') ? readFileSync(path, 'utf8') : null, exists: existsSync(join(dir, 'acc_test', 'test', 'file_a')) });
      if (path.endsWith('.part')) {
        firstSync();
        await held;
      }
    };
    const store = new DiskFileBlobStore(dir, sync);
    let answered = false;
    const write = store.stageBlob(scope, 'file_a', chunks('%PDF-', 'rest of the file')).then((staged) => {
      answered = true;
      return staged;
    });
    expect(await Promise.race([syncing, write.then(() => 'answered')])).toBe('syncing');
    // The file's own sync holds the answer, and it runs over every byte, before the file takes its name.
    expect(synced.at(-1)).toEqual({ path: join(dir, 'acc_test', 'test', 'file_a.part'), bytes: '%PDF-rest of the file', exists: false });
    // The folders made for it were synced into their parents before.
    expect(synced.slice(0, -1).map((entry) => entry.path)).toEqual([join(dir, 'acc_test'), dir]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(answered).toBe(false);
    release();
    expect(await write).toEqual({ size: 21, pendingBytes: null });
    // Then the folder that holds the new name.
    expect(synced.at(-1)).toMatchObject({ path: join(dir, 'acc_test', 'test'), exists: true });
    expect(new TextDecoder().decode(await store.readBlob(scope, 'file_a'))).toBe('%PDF-rest of the file');
  });

  test('a failed sync answers the write with its error and leaves nothing behind', async () => {
    const store = new DiskFileBlobStore(dir, async () => {
      throw Object.assign(new Error('EIO: i/o error, fsync'), { code: 'EIO' });
    });
    await expect(store.stageBlob(scope, 'file_b', chunks('%PDF-', 'x'))).rejects.toThrow('EIO');
    expect(readdirSync(join(dir, 'acc_test', 'test'))).toEqual([]);
    expect(await store.readBlob(scope, 'file_b')).toBeUndefined();
  });

  test('a re-run under the same id writes over a .part a crash left, and a failed one leaves the stored file alone', async () => {
    const folder = join(dir, 'acc_test', 'test');
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, 'file_d.part'), '%PDF-half');
    const store = new DiskFileBlobStore(dir);
    expect(await store.stageBlob(scope, 'file_d', chunks('%PDF-', 'whole'))).toEqual({ size: 10, pendingBytes: null });
    async function* cut(): AsyncGenerator<Uint8Array> {
      yield Buffer.from('%PDF-');
      throw new Error('the client went away');
    }
    await expect(store.stageBlob(scope, 'file_d', cut())).rejects.toThrow('the client went away');
    expect(new TextDecoder().decode(await store.readBlob(scope, 'file_d'))).toBe('%PDF-whole');
    expect(readdirSync(folder)).toEqual(['file_d']);
  });

  test('with the default sync, bytes are written, read and deleted', async () => {
    const store = new DiskFileBlobStore(dir);
    expect(await store.stageBlob(scope, 'file_c', chunks('GIF89a', '...'))).toEqual({ size: 9, pendingBytes: null });
    expect(new TextDecoder().decode(await store.readBlob(scope, 'file_c'))).toBe('GIF89a...');
    await store.deleteBlob(scope, 'file_c');
    expect(await store.readBlob(scope, 'file_c')).toBeUndefined();
  });
});
