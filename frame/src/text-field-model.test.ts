import { describe, expect, test } from 'vitest';
import { UpiCollectModel, VPA_PATTERN } from './upi-collect-model';

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

describe('UpiCollectModel', () => {
  test('is empty and incomplete at first, and shows no error', () => {
    const form = new UpiCollectModel();
    expect([form.empty.value, form.complete.value, form.errorKey.value]).toEqual([true, false, null]);
  });

  test('trims the VPA and completes on a valid one', () => {
    const form = new UpiCollectModel();
    form.input('  success@upi ');
    expect([form.vpaId.value, form.complete.value, form.empty.value]).toEqual(['success@upi', true, false]);
  });

  test('shows an invalid error only after the customer leaves the field', () => {
    const form = new UpiCollectModel();
    form.input('bad');
    expect(form.errorKey.value).toBeNull();
    form.leave();
    expect(form.errorKey.value).toBe('vpaInvalid');
    form.input('good@upi');
    expect(form.errorKey.value).toBeNull();
  });

  test('leaving an empty field does not nag; a submit attempt does', () => {
    const form = new UpiCollectModel();
    form.leave();
    expect(form.errorKey.value).toBeNull();
    form.reveal();
    expect(form.errorKey.value).toBe('vpaRequired');
  });

  test('clear empties the field and hides errors', () => {
    const form = new UpiCollectModel();
    form.input('bad');
    form.reveal();
    form.clear();
    expect([form.vpa.value, form.errorKey.value]).toEqual(['', null]);
  });
});
