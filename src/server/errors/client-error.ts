import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { ServiceError } from '../../shared/errors';
import { legacyEnvelope, resourceEnvelope, styleOfPath } from './envelopes';

/**
 * Requests Node's HTTP parser refuses before Fastify sees them (a URL or headers over 16 KB, a
 * malformed request line, a client too slow to send its headers) still get the envelope of their
 * path, read from the raw request line when it arrived.
 */
export function answerClientError(error: Error & { code?: string; rawPacket?: unknown }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const serviceError =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? new ServiceError('headers_too_large')
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? new ServiceError('request_timeout')
        : new ServiceError('invalid_request', 'The request could not be read.');
  const path = (Buffer.isBuffer(error.rawPacket) ? error.rawPacket.toString('latin1', 0, 2048).split(' ')[1] : undefined) ?? '/';
  const body = JSON.stringify(styleOfPath(path) === 'resource' ? resourceEnvelope(serviceError, null) : legacyEnvelope(serviceError, null));
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${serviceError.status} ${STATUS_CODES[serviceError.status]}\r\n` +
        `Content-Type: application/json; charset=utf-8\r\nX-Content-Type-Options: nosniff\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}
