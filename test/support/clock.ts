/**
 * Test instants derived from the real clock, for tests whose instants reach DynamoDB Local.
 *
 * The rate limiter's counter items carry a TTL (`expiresAt`) derived from the instant it is
 * given, and DynamoDB Local deletes items whose TTL lies in the past within about a second, so a
 * fixed calendar date in a test turns into a failure once the real clock has passed it. Instants
 * on the UTC day after the current one are safe: every item they write expires a day or more
 * after the real now, and a run that crosses midnight still sees them ahead. Tests keep the time
 * of day they mean (`10:30:15`, `23:59:30`) as a literal and take only the date from here, so
 * their expected strings are as exact as with a fixed date.
 *
 * The dates are taken once, when the module is loaded: every instant of a test file lies on the
 * same dates, even if the real date changes while the file runs.
 */

/** One UTC day in milliseconds (epoch time has no leap seconds). */
export const DAY_MS = 86_400_000;

/** `YYYY-MM-DD` of the UTC day `days` days after the one holding `epochMs`. */
function utcDateAfter(epochMs: number, days: number): string {
  return new Date(epochMs + days * DAY_MS).toISOString().slice(0, 10);
}

/** When this module was loaded, epoch milliseconds: one reading, so the dates below agree. */
const LOADED_AT = Date.now();

/** The UTC date after today's, `YYYY-MM-DD`, as of when this module was loaded. */
export const TOMORROW = utcDateAfter(LOADED_AT, 1);

/** The UTC date after {@link TOMORROW}, `YYYY-MM-DD`: where the windows of tomorrow reset. */
export const DAY_AFTER_TOMORROW = utcDateAfter(LOADED_AT, 2);

/**
 * Epoch milliseconds of a UTC date and time of day.
 *
 * @param date `YYYY-MM-DD`, usually {@link TOMORROW} or {@link DAY_AFTER_TOMORROW}.
 * @param time `HH:MM`, `HH:MM:SS` or `HH:MM:SS.sss`, UTC.
 * @throws Error when the two do not make a valid instant.
 */
export function utcInstant(date: string, time: string): number {
  const epochMs = Date.parse(`${date}T${time}Z`);
  if (Number.isNaN(epochMs)) throw new Error(`Not a UTC date and time: ${date} ${time}`);
  return epochMs;
}

/** Epoch milliseconds of `time` (`HH:MM[:SS[.sss]]`, UTC) on {@link TOMORROW}. */
export function tomorrowAt(time: string): number {
  return utcInstant(TOMORROW, time);
}

/**
 * Resolves once the real clock is at most `latestSecond` seconds into a UTC minute, so that a burst
 * started then lies in one fixed minute window of a process whose clock the test cannot freeze.
 * @param latestSecond @default 20
 */
export async function earlyInUtcMinute(latestSecond = 20): Promise<void> {
  const second = new Date().getUTCSeconds();
  if (second <= latestSecond) return;
  await new Promise((wake) => setTimeout(wake, (60 - second) * 1000));
}
