/** The wording of validation errors: each names the field once, with the noun of where it was sent. */
import { describe, expect, test } from 'vitest';
import { z } from 'zod';
import { validationError } from './error-handler';

const schema = z.strictObject({ purpose: z.literal('dispute_evidence'), dispute_id: z.string() });
const errorFor = (data: unknown, target: 'json' | 'query' | 'param' | 'form') => {
  const parsed = schema.safeParse(data);
  if (parsed.success) throw new Error('expected a refusal');
  return validationError(parsed.error.issues, data, target);
};

describe('validationError', () => {
  test('an unknown field is named once, after the noun of where it was sent', () => {
    const sent = { purpose: 'dispute_evidence', dispute_id: 'dp_1', colour: 'red' };
    expect(errorFor(sent, 'json')).toMatchObject({ code: 'ERR_2004', message: 'Unknown body field: colour.', fieldName: 'colour' });
    expect(errorFor(sent, 'query').message).toBe('Unknown query parameter: colour.');
    expect(errorFor(sent, 'param').message).toBe('Unknown path parameter: colour.');
    expect(errorFor(sent, 'form').message).toBe('Unknown form field: colour.');
  });

  test('missing and invalid fields say the same noun', () => {
    expect(errorFor({ purpose: 'dispute_evidence' }, 'form')).toMatchObject({ code: 'ERR_2001', message: 'Missing required form field: dispute_id.' });
    expect(errorFor({ purpose: 'identity_document', dispute_id: 'dp_1' }, 'json')).toMatchObject({ code: 'ERR_2003', fieldName: 'purpose' });
    expect(errorFor({ purpose: 'identity_document', dispute_id: 'dp_1' }, 'json').message).toMatch(/^Invalid body field purpose: /);
  });
});
