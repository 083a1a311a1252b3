/** The service's middy chain (`httpHandler`) on in-memory adapters, for the unit tier. */
import {
  httpHandler as chain,
  type HttpHandler,
  type HttpHandlerOptions,
  type OperationCode,
} from '../../shared/http/handler.ts';
import { inMemoryContainer } from './in-memory-container.ts';

/** {@link chain}'s options but the operation, the container optional. */
export type InMemoryHttpHandlerOptions = Omit<HttpHandlerOptions, 'container' | 'operation'> &
  Partial<Pick<HttpHandlerOptions, 'container'>>;

/**
 * {@link chain} with a fresh {@link inMemoryContainer} (its rate limiter and settings) unless
 * `options` names a container.
 */
export function httpHandler(
  fn: OperationCode,
  options: InMemoryHttpHandlerOptions = {},
): HttpHandler {
  return chain({ container: inMemoryContainer(), ...options, operation: fn });
}
