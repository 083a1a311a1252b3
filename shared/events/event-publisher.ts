/** The events the service publishes, and the port that puts them on an event bus. */

/** One event in EventBridge's terms; `detail` is a JSON object and never holds a secret. */
export interface ServiceEvent {
  /** e.g. `petstore.keys` */
  readonly source: string;
  /** e.g. `key.leaked` */
  readonly detailType: string;
  readonly detail: Readonly<Record<string, unknown>>;
}

/** The default event bus of the function's region. */
export interface EventPublisher {
  /**
   * Puts `events` on the bus, each at least once, under `signal`.
   * @throws EventsUnavailableError when the bus refused one or did not answer in time.
   */
  publish(events: readonly ServiceEvent[], options?: { signal?: AbortSignal }): Promise<void>;
}
