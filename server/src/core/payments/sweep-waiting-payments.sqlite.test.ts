import { describe } from 'vitest';
import { defineSweepSuite } from './sweep-waiting-payments.suite';

describe('waiting-payment sweep on SQLite', () => {
  defineSweepSuite('sqlite');
});
