import { describe } from 'vitest';
import { defineCustomersSuite } from './customers.api-suite';

describe('customers API on SQLite', () => {
  defineCustomersSuite('sqlite');
});
