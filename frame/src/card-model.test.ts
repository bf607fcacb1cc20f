import { describe, expect, test } from 'vitest';
import { CardModel } from './card-model';

const NOW = () => new Date(2026, 4, 15);

function filled(values: { number?: string; expiry?: string; cvc?: string; name?: string } = {}) {
  const card = new CardModel(NOW);
  card.setNumber(values.number ?? '4242424242424242');
  card.setExpiry(values.expiry ?? '1230');
  card.setCvc(values.cvc ?? '123');
  card.setName(values.name ?? 'Asha Rao');
  return card;
}

describe('CardModel', () => {
  test('formats as typed and detects the brand', () => {
    const card = new CardModel(NOW);
    expect(card.setNumber('4242424242424242')).toBe('4242 4242 4242 4242');
    expect(card.brand.value).toBe('Visa');
    expect(card.brandName.value).toBe('Visa');
    expect(card.setNumber('378282246310005')).toBe('3782 822463 10005');
    expect(card.cvcLength.value).toBe(4);
    expect(card.setExpiry('4')).toBe('04 / ');
    expect(card.setCvc('12a345')).toBe('1234');
  });

  test('is complete with a valid card and builds the vault body with MM and YYYY', () => {
    const card = filled();
    expect(card.complete.value).toBe(true);
    expect(card.empty.value).toBe(false);
    expect(card.vaultCard()).toEqual({
      card_number: '4242424242424242',
      card_exp_month: '12',
      card_exp_year: '2030',
      card_cvc: '123',
      card_holder_name: 'Asha Rao',
    });
  });

  test('shows incomplete errors only after leaving the field or submitting', () => {
    const card = new CardModel(NOW);
    card.setNumber('4242');
    expect(card.errors.value.card_number).toBeNull();
    card.leave('card_number');
    expect(card.errors.value.card_number).toBe('cardNumberIncomplete');
    card.leave('card_cvc');
    expect(card.errors.value.card_cvc).toBeNull();
    card.reveal();
    expect(card.errors.value).toEqual({
      card_number: 'cardNumberIncomplete',
      card_exp: 'expiryRequired',
      card_cvc: 'cvcRequired',
      card_holder_name: 'nameRequired',
    });
    expect(card.firstInvalid.value).toBe('card_number');
  });

  test('shows definite errors at once: Luhn, month 13 read as 01, past expiry', () => {
    const card = filled({ number: '4242424242424241', expiry: '0125' });
    expect(card.errors.value.card_number).toBe('cardNumberInvalid');
    expect(card.errors.value.card_exp).toBe('expiryPast');
    expect(card.complete.value).toBe(false);
    expect(card.firstInvalid.value).toBe('card_number');
  });

  test('refuses digits in the name and clears everything', () => {
    const card = filled({ name: '4242 4242' });
    card.leave('card_holder_name');
    expect(card.errors.value.card_holder_name).toBe('nameInvalid');
    card.clear();
    expect(card.empty.value).toBe(true);
    expect([card.number.value, card.expiry.value, card.cvc.value, card.name.value]).toEqual(['', '', '', '']);
    expect(card.errors.value.card_holder_name).toBeNull();
  });
});
