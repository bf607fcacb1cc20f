import { describe, expect, test } from 'vitest';
import { MSISDN_RULE, TextFieldModel, VPA_PATTERN, VPA_RULE } from './text-field-model';

describe('VPA_PATTERN', () => {
  test.each([
    ['success@upi', true],
    ['pending@upi', true],
    ['first.last-1_x@okhdfcbank', true],
    ['9876543210@ybl', true],
    ['@upi', false],
    ['a@upi', false],
    ['name@', false],
    ['name@1bank', false],
    ['name@@upi', false],
    ['na me@upi', false],
    ['name@upi.com', false],
  ])('%s is a VPA: %s', (vpa, valid) => {
    expect(VPA_PATTERN.test(vpa)).toBe(valid);
  });
});

describe('TextFieldModel with the VPA rule (UPI collect)', () => {
  test('is empty and incomplete at first, and shows no error', () => {
    const form = new TextFieldModel(VPA_RULE);
    expect([form.empty.value, form.complete.value, form.errorKey.value]).toEqual([true, false, null]);
  });

  test('trims the VPA and completes on a valid one', () => {
    const form = new TextFieldModel(VPA_RULE);
    form.input('  success@upi ');
    expect([form.value.value, form.complete.value, form.empty.value]).toEqual(['success@upi', true, false]);
  });

  test('shows an invalid error only after the customer leaves the field', () => {
    const form = new TextFieldModel(VPA_RULE);
    form.input('bad');
    expect(form.errorKey.value).toBeNull();
    form.leave();
    expect(form.errorKey.value).toBe('vpaInvalid');
    form.input('good@upi');
    expect(form.errorKey.value).toBeNull();
  });

  test('leaving an empty field does not nag; a submit attempt does', () => {
    const form = new TextFieldModel(VPA_RULE);
    form.leave();
    expect(form.errorKey.value).toBeNull();
    form.reveal();
    expect(form.errorKey.value).toBe('vpaRequired');
  });

  test('clear empties the field and hides errors', () => {
    const form = new TextFieldModel(VPA_RULE);
    form.input('bad');
    form.reveal();
    form.clear();
    expect([form.text.value, form.errorKey.value]).toEqual(['', null]);
  });
});

describe('TextFieldModel with the MSISDN rule (mobile money)', () => {
  test.each([
    ['+254 712 345 678', '+254712345678', true],
    ['0712-345-678', '0712345678', true],
    ['(0712) 345.678', '0712345678', true],
    ['+256700000002', '+256700000002', true],
    ['0712 345', '0712345', false],
    ['+1234567890123456', '+1234567890123456', false],
    ['07123a5678', '07123a5678', false],
    ['++254712345678', '++254712345678', false],
    ['254+712345678', '254+712345678', false],
  ])('%j is sent as %j, valid: %s', (typed, sent, valid) => {
    const form = new TextFieldModel(MSISDN_RULE);
    form.input(typed);
    expect([form.value.value, form.complete.value]).toEqual([sent, valid]);
  });

  test('its errors are the mobile money ones', () => {
    const form = new TextFieldModel(MSISDN_RULE);
    form.reveal();
    expect(form.errorKey.value).toBe('msisdnRequired');
    form.input('12');
    expect(form.errorKey.value).toBe('msisdnInvalid');
  });
});
