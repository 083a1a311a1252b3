/**
 * What every page of the signed-in portal is handed: the API's client, the configuration, and
 * the page's ways to report (a live region) and to end the session.
 */
import type { PortalConfig } from './config.ts';
import type { PortalClient } from './portal-client.ts';

/** The signed-in app, as its pages see it. */
export interface PortalApp {
  readonly config: PortalConfig;
  readonly client: PortalClient;
  /** Says `message` in the page's status region (read out by screen readers). */
  announce(message: string): void;
  /**
   * Runs `task`; an error it throws is announced as an alert, with the API's message. A 401
   * signs the page out instead (portalClient's `onUnauthorized`).
   *
   * @returns Whether `task` finished without an error.
   */
  run(task: () => Promise<void>): Promise<boolean>;
  /** Forgets the account on this page and shows the signed-out home with `message`. */
  signedOut(message: string): Promise<void>;
}
