import { createMiddleware } from 'hono/factory';
import { ApiError } from '../../core/shared/errors';
import { containsRawCardNumber } from '../../core/vault/card-number-guard';
import type { AppEnv } from '../env';
import { isJsonContentType } from './json-body';

/**
 * Spec rule 7 on bodies that carry free-form objects next to a card flow (3DS sdk_information, shipping, the 3DS
 * decision's issuer): a raw card number anywhere in the body is refused (ERR_2029) before any other validation,
 * naming the top-level field that holds it. Runs after parseJsonBody.
 */
export const rejectRawCardNumbersInBody = createMiddleware<AppEnv>(async (c, next) => {
  if (isJsonContentType(c.req.header('content-type'))) {
    const body = (await c.req.json()) as Record<string, unknown>;
    const field = Object.keys(body).find((key) => containsRawCardNumber(body[key]));
    if (field !== undefined) {
      throw new ApiError('ERR_2029', 'Raw card numbers are not accepted. Collect cards in the hosted frame, which sends them to the vault only.', { fieldName: field });
    }
  }
  await next();
});
