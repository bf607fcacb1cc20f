/**
 * The account an embedded test server starts with: every simulated rail on in test mode (docs/simulator.md), so a
 * checkout test can pay by card (3DS included), UPI, crypto and bank transfer without configuring anything.
 */
export const DEFAULT_TEST_ACCOUNT = {
  merchant_name: 'Rail test store',
  rails: [
    { rail: 'upi', currencies: ['INR'], modes: ['test'], capabilities: { test: { refunds: true, recurring: true } } },
    { rail: 'card', currencies: ['INR', 'EUR', 'USD', 'GBP'], modes: ['test'] },
    { rail: 'crypto', currencies: ['EUR', 'USD', 'GBP'], modes: ['test'] },
    { rail: 'bank_transfer', currencies: ['KES', 'GHS', 'TZS', 'UGX'], modes: ['test'] },
  ],
} as const;
