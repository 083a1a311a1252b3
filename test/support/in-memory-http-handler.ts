/** The service's middy chain (`httpHandler`) on in-memory adapters, for the unit tier. */
import {
  httpHandler as chain,
  type HttpHandler,
  type HttpHandlerOptions,
  type OperationFunction,
} from '../../shared/http/handler.ts';
import { inMemoryContainer } from './in-memory-container.ts';

/** {@link chain}'s options, the container optional. */
export type InMemoryHttpHandlerOptions<T> = Omit<HttpHandlerOptions<T>, 'container'> &
  Partial<Pick<HttpHandlerOptions<T>, 'container'>>;

/**
 * {@link chain} with a fresh {@link inMemoryContainer} (its rate limiter and settings) unless
 * `options` names a container.
 */
export function httpHandler<T = undefined>(
  fn: OperationFunction<T>,
  options: InMemoryHttpHandlerOptions<T> = {},
): HttpHandler {
  return chain(fn, { container: inMemoryContainer(), ...options });
}
