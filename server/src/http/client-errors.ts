/**
 * Errors Node's HTTP layer raises before a request reaches the app (an unknown method, headers over the limit,
 * broken framing such as more bytes than the Content-Length, a request that never completes): without a
 * `clientError` listener Node answers them with an empty body. Here each gets the error envelope like any other
 * error, and a client that went away is logged as such, never as a server failure.
 */
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { STATUS_CODES } from 'node:http';
import type { Logger } from '../logger';
import { errorBody, isClientGone } from './error-handler';
import { ERROR_CATALOG, type ErrorCode } from '../../../protocol/errors';

const CODE_OF_PARSER_ERROR: Record<string, { code: ErrorCode; message: string }> = {
  HPE_HEADER_OVERFLOW: { code: 'ERR_2011', message: 'The request headers are larger than the server reads.' },
  ERR_HTTP_REQUEST_TIMEOUT: { code: 'ERR_2013', message: 'The request did not arrive in time.' },
  ERR_HTTP_HEADERS_TIMEOUT: { code: 'ERR_2013', message: 'The request headers did not arrive in time.' },
};
const MALFORMED = { code: 'ERR_2012' as ErrorCode, message: 'The request is not valid HTTP.' };

export function answerClientErrors(server: Server, logger: Logger): void {
  server.on('clientError', (error: Error & { code?: string }, socket: Socket) => {
    if (isClientGone(error) || !socket.writable) {
      logger.info({ reason: error.code ?? error.message }, 'client disconnected');
      socket.destroy();
      return;
    }
    const { code, message } = CODE_OF_PARSER_ERROR[error.code ?? ''] ?? MALFORMED;
    const status = ERROR_CATALOG[code].status;
    const body = JSON.stringify(errorBody(code, message));
    logger.info({ status, reason: error.code ?? error.message }, 'request refused by the HTTP parser');
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
}
