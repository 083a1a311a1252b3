/** The headers of a deprecated operation (its row of shared/operations.ts, `deprecation`). */
import { stagePath } from '../paths.ts';

/** An operation's deprecation: when it was deprecated, when it goes, and what replaces it. */
export interface Deprecation {
  readonly deprecatedAt: Date;
  readonly sunset: Date;
  /** Its successor's path, relative to the stage. */
  readonly successor: string;
}

/**
 * `Deprecation` (RFC 9745), `Sunset` (RFC 8594) and `Link` to the successor (RFC 8288).
 * @example deprecationHeaders(routeOf('getPet').deprecation) → `{ Deprecation: '@1795219200',
 *   Sunset: 'Thu, 05 Dec 2030 00:00:00 GMT', Link: '</v1/pets>; rel="successor-version"' }`
 */
export function deprecationHeaders(deprecation: Deprecation): Record<string, string> {
  return {
    Deprecation: `@${Math.floor(deprecation.deprecatedAt.getTime() / 1000)}`,
    Sunset: deprecation.sunset.toUTCString(),
    Link: `<${stagePath(deprecation.successor)}>; rel="successor-version"`,
  };
}
