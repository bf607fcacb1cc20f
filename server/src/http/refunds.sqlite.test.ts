import { describe } from 'vitest';
import { defineRefundsSuite } from './refunds.api-suite';

describe('Refunds API on SQLite', () => {
  defineRefundsSuite('sqlite');
});
