import { describe } from 'vitest';
import { definePaymentOpsSuite } from './payments-ops.api-suite';

describe('payments operations on SQLite', () => {
  definePaymentOpsSuite('sqlite');
});
