import { createWriteStream } from 'node:fs';
import { lstat, mkdir, open, readdir, readFile, rename, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Scope } from '../../kernel/store-types';
import type { Mode } from '../../../../protocol/ids';
import type { FileBlobStore, StagedBlob } from './store';

const SAFE_NAME = /^[A-Za-z0-9_-]{1,64}$/;
const PARTIAL = '.part';
const MODES: readonly Mode[] = ['test', 'live'];
/** File ids per batch of the orphan sweep's listing. */
const SWEEP_BATCH = 500;

/** Makes what is written at `path` (a file, or a folder's names) durable: fsync. */
export type SyncPath = (path: string) => Promise<void>;

const fsyncPath: SyncPath = async (path) => {
  const handle = await open(path, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
};

/**
 * File bytes on disk (SQLite, one instance): `<dir>/<account_id>/<mode>/<file_id>`. Bytes are streamed to a
 * `.part` file and renamed once complete, so a failed upload (size limit, truncated body) leaves nothing behind. The
 * write is answered only once the bytes and then their name are synced, as the database's own writes are
 * (docs/reliability.md, invariant 1): the file's record commits after it, and a power loss must not keep a record
 * whose bytes were lost. The other way round, a crash between the bytes and their record leaves bytes no record
 * names: the orphan sweep lists them (listBlobs) and removes those older than any upload in flight.
 *
 * A keyed upload's re-run stages under its first run's id (kernel/ids.ts derivedIds), over the bytes a crashed first
 * run left, which the sweep may be removing: the sweep's look at a name's age and its removal, and an upload's stage
 * of that name, never overlap (`claims`). One process holds the store (SQLite: one instance), so claims in memory
 * cover every writer.
 */
export class DiskFileBlobStore implements FileBlobStore {
  /** The paths being staged, or looked at by the sweep; each resolves when its holder is done. */
  private readonly claims = new Map<string, Promise<void>>();

  constructor(
    private readonly dir: string,
    private readonly sync: SyncPath = fsyncPath,
  ) {}

  /** Claims `path` once no one else holds it: an upload waits for the sweep's look at its name (and for a twin). */
  private async claim(path: string): Promise<() => void> {
    for (let held = this.claims.get(path); held !== undefined; held = this.claims.get(path)) await held;
    return this.claimNow(path)!;
  }

  /** Claims `path` unless someone holds it (the sweep skips a name being staged: its bytes are an upload's). */
  private claimNow(path: string): (() => void) | undefined {
    if (this.claims.has(path)) return undefined;
    let release!: () => void;
    this.claims.set(path, new Promise<void>((resolve) => (release = resolve)));
    return () => {
      this.claims.delete(path);
      release();
    };
  }

  private pathOf(scope: Scope, fileId: string): { folder: string; path: string } {
    for (const name of [scope.accountId, scope.mode, fileId]) {
      if (!SAFE_NAME.test(name)) throw new Error('unsafe file store path segment');
    }
    const folder = join(this.dir, scope.accountId, scope.mode);
    return { folder, path: join(folder, fileId) };
  }

  async stageBlob(scope: Scope, fileId: string, chunks: AsyncIterable<Uint8Array>): Promise<StagedBlob> {
    const { folder, path } = this.pathOf(scope, fileId);
    const release = await this.claim(path);
    try {
      return await this.stageClaimed(folder, path, chunks);
    } finally {
      release();
    }
  }

  private async stageClaimed(folder: string, path: string, chunks: AsyncIterable<Uint8Array>): Promise<StagedBlob> {
    const firstCreated = await mkdir(folder, { recursive: true });
    // Folders made just now are names in their parents, which need their own sync.
    if (firstCreated !== undefined) {
      for (let made = folder; made.length >= firstCreated.length; made = dirname(made)) await this.sync(dirname(made));
    }
    const partial = `${path}${PARTIAL}`;
    let size = 0;
    const counted = async function* () {
      for await (const chunk of chunks) {
        size += chunk.byteLength;
        yield chunk;
      }
    };
    let renamed = false;
    try {
      // 'w', not 'wx': a `.part` a crash left mid-write under a derived id (an Idempotency-Key re-run) is written over.
      await pipeline(Readable.from(counted()), createWriteStream(partial, { flags: 'w', mode: 0o600 }));
      await this.sync(partial);
      await rename(partial, path);
      renamed = true;
      await this.sync(folder);
    } catch (error) {
      await rm(partial, { force: true });
      // Only bytes this call put there: under a re-run's derived id, `path` may hold the first run's committed file.
      if (renamed) await rm(path, { force: true });
      throw error;
    }
    return { size, pendingBytes: null };
  }

  async discardStagedBlob(scope: Scope, fileId: string): Promise<void> {
    await rm(this.pathOf(scope, fileId).path, { force: true });
  }

  async readBlob(scope: Scope, fileId: string): Promise<Uint8Array | undefined> {
    try {
      return new Uint8Array(await readFile(this.pathOf(scope, fileId).path));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  }

  async deleteBlob(scope: Scope, fileId: string): Promise<void> {
    await rm(this.pathOf(scope, fileId).path, { force: true });
  }

  async *listBlobs(): AsyncIterable<{ scope: Scope; fileIds: string[] }> {
    for (const accountId of await namesIn(this.dir)) {
      if (!SAFE_NAME.test(accountId)) continue;
      for (const mode of MODES) {
        const ids = new Set<string>();
        for (const name of await namesIn(join(this.dir, accountId, mode))) {
          const fileId = name.endsWith(PARTIAL) ? name.slice(0, -PARTIAL.length) : name;
          if (SAFE_NAME.test(fileId)) ids.add(fileId);
        }
        const fileIds = [...ids];
        for (let from = 0; from < fileIds.length; from += SWEEP_BATCH) {
          yield { scope: { accountId, mode }, fileIds: fileIds.slice(from, from + SWEEP_BATCH) };
        }
      }
    }
  }

  async deleteBlobsWrittenBefore(scope: Scope, fileIds: readonly string[], before: Date): Promise<number> {
    let removed = 0;
    for (const fileId of fileIds) {
      const { path } = this.pathOf(scope, fileId);
      // Held from the look at the age to the removal: an upload's rename cannot land in between.
      const release = this.claimNow(path);
      if (release === undefined) continue;
      try {
        for (const candidate of [path, `${path}${PARTIAL}`]) {
          const stats = await lstat(candidate).catch(() => undefined);
          if (stats === undefined || !stats.isFile() || stats.mtime >= before) continue;
          await rm(candidate, { force: true });
          removed += 1;
        }
      } finally {
        release();
      }
    }
    return removed;
  }
}

/** The names in a folder; none when it does not exist. */
async function namesIn(folder: string): Promise<string[]> {
  try {
    return await readdir(folder);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}
