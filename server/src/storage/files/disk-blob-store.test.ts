/**
 * The bytes of uploads on disk (SQLite): a write is answered only once the bytes and their name are on disk, as every
 * other acknowledged write (docs/reliability.md, invariant 1); a failed sync answers nothing and leaves nothing.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import type { Stats } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { DiskFileBlobStore, type SyncPath } from './disk-blob-store';

/** Hooks into the store's file system calls, to run an upload at a chosen point of the sweep. */
const fsHooks = vi.hoisted(() => ({
  /** Runs after the store's lstat of a path, before the store sees its answer. */
  afterLstat: undefined as ((path: string) => Promise<void>) | undefined,
  mkdirCalls: 0,
}));
vi.mock('node:fs/promises', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:fs/promises')>();
  return {
    ...actual,
    lstat: async (path: string): Promise<Stats> => {
      const stats = await actual.lstat(path);
      await fsHooks.afterLstat?.(path);
      return stats;
    },
    mkdir: (...args: Parameters<typeof actual.mkdir>) => {
      fsHooks.mkdirCalls += 1;
      return actual.mkdir(...args);
    },
  };
});

const scope = { accountId: 'acc_test', mode: 'test' as const };

async function* chunks(...parts: string[]): AsyncGenerator<Uint8Array> {
  for (const part of parts) yield Buffer.from(part);
}

describe('DiskFileBlobStore', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'rail-blobs-'));
  });
  afterEach(() => {
    fsHooks.afterLstat = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

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

  describe('the orphan sweep never removes the bytes of an upload in progress', () => {
    const old = new Date(Date.now() - 2 * 60 * 60_000);
    const sweptBefore = () => new Date(Date.now() - 60 * 60_000);
    /** What a first run left before it crashed: its bytes, staged, an old write, without a record. */
    const leftByAFirstRun = (name: string) => {
      const folder = join(dir, 'acc_test', 'test');
      mkdirSync(folder, { recursive: true });
      writeFileSync(join(folder, name), '%PDF-first run');
      utimesSync(join(folder, name), old, old);
      return join(folder, name);
    };

    test("a re-run's bytes renamed into place while the sweep looks at the first run's stay", async () => {
      const path = leftByAFirstRun('file_r');
      const store = new DiskFileBlobStore(dir);
      let restage: Promise<unknown> | undefined;
      fsHooks.afterLstat = async (looked) => {
        if (looked !== path || restage !== undefined) return;
        // The sweep has seen the first run's old bytes. The re-run stages now, as far as it may go before the removal.
        const mkdirsBefore = fsHooks.mkdirCalls;
        restage = store.stageBlob(scope, 'file_r', chunks('%PDF-', 're-run'));
        if (fsHooks.mkdirCalls > mkdirsBefore) await restage;
      };
      const removed = await store.deleteBlobsWrittenBefore(scope, ['file_r'], sweptBefore());
      await restage;
      // Either the sweep removed the first run's bytes before the re-run staged, or it left them to be written over.
      expect(removed).toBeLessThanOrEqual(1);
      expect(new TextDecoder().decode(await store.readBlob(scope, 'file_r'))).toBe('%PDF-re-run');
    });

    test('the sweep skips a name being staged, its .part and the bytes it will replace', async () => {
      const path = leftByAFirstRun('file_s');
      let stageWriting!: () => void;
      const writing = new Promise<void>((resolve) => (stageWriting = resolve));
      let finish!: () => void;
      const finished = new Promise<void>((resolve) => (finish = resolve));
      const store = new DiskFileBlobStore(dir, async (synced) => {
        if (!synced.endsWith('.part')) return;
        // The .part is complete and looks as old as a crash's.
        utimesSync(synced, old, old);
        stageWriting();
        await finished;
      });
      const restage = store.stageBlob(scope, 'file_s', chunks('%PDF-', 're-run'));
      await writing;
      expect(await store.deleteBlobsWrittenBefore(scope, ['file_s'], sweptBefore())).toBe(0);
      expect(readdirSync(join(dir, 'acc_test', 'test')).sort()).toEqual(['file_s', 'file_s.part']);
      finish();
      expect(await restage).toEqual({ size: 11, pendingBytes: null });
      expect(readFileSync(path, 'utf8')).toBe('%PDF-re-run');
    });

    test('bytes no upload is staging are removed once older than the limit', async () => {
      leftByAFirstRun('file_t');
      const store = new DiskFileBlobStore(dir);
      expect(await store.deleteBlobsWrittenBefore(scope, ['file_t'], new Date(old.getTime() - 1))).toBe(0);
      expect(await store.deleteBlobsWrittenBefore(scope, ['file_t'], sweptBefore())).toBe(1);
      expect(await store.readBlob(scope, 'file_t')).toBeUndefined();
    });
  });
});
