import { afterEach, describe, expect, test, vi } from 'vitest';

const french = vi.hoisted(() => ({ fails: true }));
vi.mock('./locale-chunks', async (importOriginal) => {
  const original = await importOriginal<typeof import('./locale-chunks')>();
  return {
    LOCALE_CHUNKS: {
      ...original.LOCALE_CHUNKS,
      fr: () => (french.fails ? Promise.reject(new TypeError('Failed to fetch dynamically imported module')) : original.LOCALE_CHUNKS.fr()),
    },
  };
});

const { DEFAULT_MESSAGES, loadMessages } = await import('./i18n');

afterEach(() => {
  french.fails = true;
});

describe('loadMessages', () => {
  test('English is at hand; another locale comes from its chunk, loaded once', async () => {
    expect(await loadMessages('en')).toBe(DEFAULT_MESSAGES);
    const spanish = await loadMessages('es');
    expect(spanish.upiLabel).toBe('ID de UPI');
    expect(await loadMessages('es')).toBe(spanish);
  });

  test('a chunk that does not load gives English, and the next call tries again', async () => {
    expect(await loadMessages('fr')).toBe(DEFAULT_MESSAGES);
    french.fails = false;
    expect((await loadMessages('fr')).upiLabel).toBe('Identifiant UPI');
  });
});
