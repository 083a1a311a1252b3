/**
 * Instants for tests that write to DynamoDB Local with an injected clock. DynamoDB Local deletes
 * items whose TTL attribute lies in the past within about a second, so such tests never use fixed
 * calendar dates: their days start tomorrow (UTC), whenever the tests run.
 */

const MS_PER_DAY = 86_400_000;

/** Midnight UTC at the start of tomorrow, epoch milliseconds. */
const DAY_ZERO = (Math.floor(Date.now() / MS_PER_DAY) + 1) * MS_PER_DAY;

/**
 * An instant on a test day.
 *
 * @param day Days after day zero (tomorrow, UTC): 0 is day zero, 1 the day after.
 * @param time UTC time of day, `HH:MM:SS`.
 * @returns Epoch milliseconds.
 */
export function testInstant(day: number, time: string): number {
  return DAY_ZERO + day * MS_PER_DAY + Date.parse(`1970-01-01T${time}Z`);
}
