import { describe } from 'vitest';
import { defineApiSuite } from './api-suite';

describe('API on SQLite', () => {
  defineApiSuite('sqlite');
});
