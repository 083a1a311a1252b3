/** Errors of event publishing. */

/** The event bus failed, throttled or did not answer in time (HTTP 503 where it fails a request). */
export class EventsUnavailableError extends Error {
  override readonly name = 'EventsUnavailableError';
}
