import { describe } from 'vitest';
import { defineEventsApiSuite } from './events.api-suite';

describe('events API on SQLite', () => {
  defineEventsApiSuite('sqlite');
});
