/**
 * What the client reads from response headers: the rate-limit state (`X-RateLimit-*` and the
 * structured fields `RateLimit`/`RateLimit-Policy`, RFC 9651), `Retry-After`, `Link` targets
 * (RFC 8288) and deprecation notices (RFC 9745, RFC 8594). A malformed header is read as absent.
 */
import {
  type BareItem,
  type Item,
  type Parameters,
  parseItem,
  parseList,
  Token,
} from 'structured-headers';
import { HEADERS } from './api.ts';

/** One quota policy of `RateLimit-Policy` (draft-ietf-httpapi-ratelimit-headers-10). */
export interface RateLimitPolicy {
  /** The policy's name, e.g. `minute` or `day`. */
  readonly name: string;
  /** Requests (or `quotaUnit`s) allowed per window: the `q` parameter. */
  readonly quota: number;
  /** Window length in seconds (`w`), when given. */
  readonly windowSeconds: number | undefined;
  /** Quota unit (`qu`), when given; `requests` by default per the draft. */
  readonly quotaUnit: string | undefined;
}

/** One window's state of `RateLimit` (draft-ietf-httpapi-ratelimit-headers-10). */
export interface RateLimitWindow {
  /** The policy's name, e.g. `minute` or `day`. */
  readonly name: string;
  /** Requests left in the window (`r`). */
  readonly remaining: number;
  /** When the window resets: the answer's arrival plus `t` seconds; undefined without `t`. */
  readonly reset: Date | undefined;
}

/** The rate-limit state an answer carries; fields the answer lacks are `undefined` or empty. */
export interface RateLimitState {
  /** `X-RateLimit-Limit`: requests allowed in the binding window. */
  readonly limit: number | undefined;
  /** `X-RateLimit-Remaining`: requests left in the binding window (absent when uncounted). */
  readonly remaining: number | undefined;
  /** `X-RateLimit-Reset`: when the binding window (or a ban) ends. */
  readonly reset: Date | undefined;
  /** `RateLimit-Policy`: every window's quota. */
  readonly policies: readonly RateLimitPolicy[];
  /** `RateLimit`: every window's requests left and reset. */
  readonly windows: readonly RateLimitWindow[];
}

/** What a response says about its operation's deprecation (`Deprecation`, `Sunset`, `Link`). */
export interface DeprecationNotice {
  /** The operationId, e.g. `getPet`. */
  readonly operation: string;
  /** When the operation was deprecated (`Deprecation`, RFC 9745), when given as a date. */
  readonly deprecatedAt: Date | undefined;
  /** When the operation will be removed (`Sunset`, RFC 8594). */
  readonly sunset: Date | undefined;
  /** Absolute URL of the replacement (`Link` rel="successor-version"), when given. */
  readonly successor: string | undefined;
}

/** A non-negative integer header, or undefined. */
function wholeNumber(headers: Headers, name: string): number | undefined {
  const value = headers.get(name)?.trim();
  return value && /^\d+$/.test(value) ? Number(value) : undefined;
}

/** A structured-field list, or no members when absent or malformed. */
function listItems(value: string | null): Item[] {
  if (!value) return [];
  try {
    return parseList(value).filter((member): member is Item => !Array.isArray(member[0]));
  } catch {
    return [];
  }
}

/** A String or a Token as text (the draft allows either for names), else undefined. */
function text(value: BareItem | undefined): string | undefined {
  if (typeof value === 'string') return value;
  return value instanceof Token ? value.toString() : undefined;
}

/** An Integer parameter, or undefined. */
function integerParameter(parameters: Parameters, key: string): number | undefined {
  const value = parameters.get(key);
  return typeof value === 'number' && Number.isInteger(value) ? value : undefined;
}

/**
 * The rate-limit state of an answer.
 *
 * @param headers The response's headers.
 * @param receivedAt When the answer arrived, epoch ms: the origin of `RateLimit`'s `t` seconds.
 */
export function rateLimitState(headers: Headers, receivedAt: number): RateLimitState {
  const reset = wholeNumber(headers, HEADERS.reset);
  const policies: RateLimitPolicy[] = [];
  for (const item of listItems(headers.get(HEADERS.policy))) {
    const name = text(item[0]);
    const quota = integerParameter(item[1], 'q');
    if (name === undefined || quota === undefined) continue;
    policies.push({
      name,
      quota,
      windowSeconds: integerParameter(item[1], 'w'),
      quotaUnit: text(item[1].get('qu')),
    });
  }
  const windows: RateLimitWindow[] = [];
  for (const item of listItems(headers.get(HEADERS.state))) {
    const name = text(item[0]);
    const remaining = integerParameter(item[1], 'r');
    const seconds = integerParameter(item[1], 't');
    if (name === undefined || remaining === undefined) continue;
    const resetAt = seconds === undefined ? undefined : new Date(receivedAt + seconds * 1000);
    windows.push({ name, remaining, reset: resetAt });
  }
  return {
    limit: wholeNumber(headers, HEADERS.limit),
    remaining: wholeNumber(headers, HEADERS.remaining),
    reset: reset === undefined ? undefined : new Date(reset * 1000),
    policies,
    windows,
  };
}

/**
 * `Retry-After` in seconds (RFC 9110 §10.2.3): delay-seconds, or an HTTP date made relative to
 * `now` (epoch ms).
 *
 * @returns Seconds, >= 0; undefined when absent or malformed.
 */
export function retryAfterSeconds(headers: Headers, now: number): number | undefined {
  const value = headers.get(HEADERS.retryAfter)?.trim();
  if (!value) return undefined;
  if (/^\d+$/.test(value)) return Number(value);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - now) / 1000));
}

const LINK =
  /<([^>]*)>((?:\s*;\s*[\w!#$%&'*+.^`|~-]+\s*(?:=\s*(?:"(?:[^"\\]|\\.)*"|[^;,\s]*))?)*)/g;
const LINK_PARAMETER = /;\s*([\w!#$%&'*+.^`|~-]+)\s*(?:=\s*(?:"((?:[^"\\]|\\.)*)"|([^;,\s]*)))?/g;

/**
 * The target of the first link with relation `rel` in `Link` headers (RFC 8288), resolved
 * against `base`.
 *
 * @returns An absolute URL, or undefined when no link has that relation.
 */
export function linkTarget(headers: Headers, rel: string, base: string): string | undefined {
  for (const [, target = '', parameters = ''] of (headers.get(HEADERS.link) ?? '').matchAll(LINK)) {
    for (const [, key, quoted, bare] of parameters.matchAll(LINK_PARAMETER)) {
      const relations = (quoted ?? bare ?? '').toLowerCase().split(/\s+/);
      if (key?.toLowerCase() === 'rel' && relations.includes(rel)) {
        return new URL(target, base).href;
      }
    }
  }
  return undefined;
}

/**
 * The deprecation notice of an answer, if it carries `Deprecation` or `Sunset`.
 *
 * @param operation The operationId the answer belongs to.
 * @param base URL that relative `Link` targets are resolved against.
 */
export function deprecationNotice(
  headers: Headers,
  operation: string,
  base: string,
): DeprecationNotice | undefined {
  const deprecation = headers.get(HEADERS.deprecation);
  const sunset = headers.get(HEADERS.sunset);
  if (deprecation === null && sunset === null) return undefined;
  let deprecatedAt: Date | undefined;
  try {
    const [value] = parseItem(deprecation ?? '');
    if (value instanceof Date) deprecatedAt = value;
  } catch {
    deprecatedAt = undefined;
  }
  const sunsetAt = sunset === null ? Number.NaN : Date.parse(sunset);
  return {
    operation,
    deprecatedAt,
    sunset: Number.isNaN(sunsetAt) ? undefined : new Date(sunsetAt),
    successor: linkTarget(headers, 'successor-version', base),
  };
}
