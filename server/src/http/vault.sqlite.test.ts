import { describe } from 'vitest';
import { defineVaultSuite } from './vault.api-suite';

describe('vault and simulators on SQLite', () => {
  defineVaultSuite('sqlite');
});
