import type { FileRecord } from '../../storage/files/records';
import type { AuthContext } from '../auth/auth-context';
import type { CoreDeps } from '../shared/deps';
import { fileBlobsOf, fileNotFound, findLiveFileOrThrow } from './find-dispute';

/** GET /files/{file_id} (secret key): the file's bytes and its record (content type detected at upload). */
export async function retrieveFile(deps: CoreDeps, auth: AuthContext, fileId: string): Promise<{ file: FileRecord; bytes: Uint8Array }> {
  const file = await findLiveFileOrThrow(deps.store, auth, fileId);
  const bytes = await fileBlobsOf(deps).readBlob(auth, fileId);
  if (bytes === undefined) throw fileNotFound();
  return { file, bytes };
}
