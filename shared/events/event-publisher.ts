/** The events the service publishes, and the port that puts them on an event bus. */

/** One event, in EventBridge's terms: its `source`, its `detail-type` and its JSON `detail`. */
export interface ServiceEvent {
  /** Who publishes it, e.g. `petstore.keys`: what a rule matches first. */
  readonly source: string;
  /** What happened, e.g. `key.leaked`. */
  readonly detailType: string;
  /** A JSON object, never a secret (no token, no token hash). */
  readonly detail: Readonly<Record<string, unknown>>;
}

/** The stage's default event bus in the function's region (docs/operations.md, "Events"). */
export interface EventPublisher {
  /**
   * Puts `events` on the bus, each at least once, under `signal`.
   * @throws EventsUnavailableError when the bus refused one or did not answer in time (the others
   *   may be published).
   */
  publish(events: readonly ServiceEvent[], options?: { signal?: AbortSignal }): Promise<void>;
}
