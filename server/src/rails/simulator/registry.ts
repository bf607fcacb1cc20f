import { createRailRegistry, type RailAdapter, type RailRegistry } from '../rail-adapter';
import { createMemoryRailLedger, type RailLedger } from '../rail-ledger';
import { BankTransferSimulator } from './bank-transfer-simulator';
import { CardSimulator, type CardSimulatorOptions } from './card-simulator';
import { CryptoSimulator } from './crypto-simulator';
import { RememberingRail } from './remembering-rail';
import type { HoldingSimulator } from './simulated-capture';
import { SimulatorFaults } from './simulator-faults';
import { UpiSimulator } from './upi-simulator';

export interface SimulatorRegistryOptions extends CardSimulatorOptions {
  /** Where the simulators remember their answers (the database in compose.ts; memory when absent). */
  ledger?: RailLedger;
  /** Faults to play on demand (tests); none when absent. */
  faults?: SimulatorFaults;
  /** How long a `timeout` fault holds its answer back. */
  timeoutFaultMs?: number;
}

/**
 * Test mode: every rail answered by its deterministic simulator, with a rail's memory of its answers. Whether an
 * account may use a rail is decided by its settings (core/accounts/account-settings.ts), not here. Live mode has no
 * adapter yet (ERR_3010).
 */
export function createSimulatorRegistry(options: SimulatorRegistryOptions): RailRegistry {
  const memory = {
    ledger: options.ledger ?? createMemoryRailLedger(),
    faults: options.faults ?? new SimulatorFaults(),
    timeoutFaultMs: options.timeoutFaultMs ?? 60_000,
  };
  const remembering = (adapter: RailAdapter & Partial<HoldingSimulator>) => new RememberingRail(adapter, memory);
  return createRailRegistry({
    test: {
      upi: remembering(new UpiSimulator(options)),
      card: remembering(new CardSimulator(options)),
      crypto: remembering(new CryptoSimulator(options)),
      bank_transfer: remembering(new BankTransferSimulator(options)),
    },
  });
}
