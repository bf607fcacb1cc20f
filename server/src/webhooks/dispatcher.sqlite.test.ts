import { describe } from 'vitest';
import { defineDispatcherSuite } from './dispatcher-suite';

describe('webhook dispatcher on SQLite', () => {
  defineDispatcherSuite('sqlite');
});
