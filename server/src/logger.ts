import pino, { type DestinationStream, type Logger } from 'pino';

/**
 * Paths pino censors in every log line: credentials, client secrets and card fields, wherever a request or
 * object is logged. Request bodies are never logged; this is the second line of defence.
 */
export const REDACT_PATHS = [
  'req.headers["api-key"]',
  'req.headers.authorization',
  'req.headers.cookie',
  'headers["api-key"]',
  'headers.authorization',
  'client_secret',
  '*.client_secret',
  '*.*.client_secret',
  '*.*.*.client_secret',
  'card_number',
  '*.card_number',
  '*.*.card_number',
  '*.*.*.card_number',
  'card_cvc',
  '*.card_cvc',
  '*.*.card_cvc',
  '*.*.*.card_cvc',
  '*.*.*.*.card_number',
  '*.*.*.*.card_cvc',
  'card_holder_name',
  '*.card_holder_name',
  '*.*.card_holder_name',
  '*.*.*.card_holder_name',
  'payment_method_data',
  '*.payment_method_data',
  'password',
  '*.password',
  'totp_secret',
  '*.totp_secret',
  'api_key',
  '*.api_key',
];

export type { Logger };

export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service: 'rail' },
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    destination,
  );
}
