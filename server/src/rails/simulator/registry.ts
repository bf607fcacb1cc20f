import { createRailRegistry, type RailRegistry } from '../rail-adapter';
import { BankTransferSimulator } from './bank-transfer-simulator';
import { CardSimulator, type SimulatorOptions } from './card-simulator';
import { CryptoSimulator } from './crypto-simulator';
import { UpiSimulator } from './upi-simulator';

/**
 * Test mode: every rail answered by its deterministic simulator. Whether an account may use a rail is decided by
 * its settings (core/accounts/account-settings.ts), not here. Live mode has no adapter yet (ERR_3010).
 */
export function createSimulatorRegistry(options: SimulatorOptions): RailRegistry {
  return createRailRegistry({
    test: {
      upi: new UpiSimulator(options),
      card: new CardSimulator(options),
      crypto: new CryptoSimulator(options),
      bank_transfer: new BankTransferSimulator(options),
    },
  });
}
