import { describe } from 'vitest';
import { defineIdempotencySuite } from './idempotency.api-suite';

describe('Idempotency-Key on SQLite', () => {
  defineIdempotencySuite('sqlite');
});
