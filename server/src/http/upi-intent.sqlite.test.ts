import { describe } from 'vitest';
import { defineUpiIntentSuite } from './upi-intent.api-suite';

describe('UPI intent and QR on SQLite', () => {
  defineUpiIntentSuite('sqlite');
});
