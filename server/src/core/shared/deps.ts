import type { CollectProviderRegistry } from '../../rails/collect-provider';
import type { RailRegistry } from '../../rails/rail-adapter';
import type { Store } from '../../storage/stores';
import type { Clock } from '../../kernel/clock';
import type { IdGenerator } from '../../kernel/ids';
import type { CardVault } from '../../vault/card-vault';
import type { FileBlobStore } from '../../storage/files/store';

/** What every core operation may use. Concrete adapters are chosen in main.ts (or a test harness). */
export interface CoreDeps {
  store: Store;
  rails: RailRegistry;
  clock: Clock;
  ids: IdGenerator;
  /**
   * Where the bytes of uploaded files live (disk beside SQLite, file_blobs on PostgreSQL; compose.ts chooses).
   * Optional like the vault, so deps built for other operations' unit tests need not make one.
   */
  fileBlobs?: FileBlobStore;
  /**
   * The card vault (POST /vault/tokens, psp_token confirms). Optional so deps built without one (unit tests of
   * other operations) need not make a key; without it the vault answers ERR_4004 like an account without cards.
   */
  vault?: CardVault;
  /** The Collect API's providers per mode; absent (or no provider for the mode): Collect answers ERR_3010. */
  collect?: CollectProviderRegistry;
}
