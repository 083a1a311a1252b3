/** The service's middy chain (`httpHandler`) on in-memory adapters, for the unit tier. */
import { httpHandler as chain } from '../../shared/http/handler.ts';
import { inMemoryContainer } from './in-memory-container.ts';

/**
 * {@link chain} with a fresh {@link inMemoryContainer} (its rate limiter and settings) unless
 * `options` names a container.
 */
export const httpHandler: typeof chain = (fn, options = {}) =>
  chain(fn, { container: inMemoryContainer(), ...options });
