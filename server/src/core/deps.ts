import type { RailRegistry } from '../rails/rail-adapter';
import type { Store } from '../storage/stores';
import type { Clock } from './clock';
import type { IdGenerator } from './ids';

/** What every core operation may use. Concrete adapters are chosen in main.ts (or a test harness). */
export interface CoreDeps {
  store: Store;
  rails: RailRegistry;
  clock: Clock;
  ids: IdGenerator;
}
