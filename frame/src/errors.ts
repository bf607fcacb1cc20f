import type { ApiErrorObject } from '../../protocol/errors';
import type { ClientErrorCode } from '../../protocol/frame-messages';

/** Frame-side errors: a coded, fixed message that never echoes what the customer typed. */
export function clientError(code: ClientErrorCode, message: string, fieldName?: string): ApiErrorObject {
  const type = code === 'ERR_6005' ? 'validation_error' : code === 'ERR_6003' || code === 'ERR_6004' ? 'api_connection_error' : 'integration_error';
  return fieldName === undefined ? { type, code, message } : { type, code, message, field_name: fieldName };
}
