/** The stage's cursor key, read through the Parameters and Secrets Lambda Extension. */
import { withDeadline } from './deadline.ts';
import {
  type FunctionSettings,
  readFunctionSettings,
  requiredSetting,
} from './function-settings.ts';
import { CursorCodec } from './pets/cursor.ts';
import { StoreUnavailableError } from './store-errors.ts';

/** How long a container keeps the key read from Secrets Manager, in seconds. */
export const CURSOR_KEY_CACHE_SECONDS = 3600;

/** Bounds of a read of the key, in milliseconds: Secrets Manager's, and the extension's answer's. */
export const SECRET_READ_BOUNDS = { secretsManagerTimeoutMs: 2_000, answerTimeoutMs: 3_000 };

/**
 * The cursor key from the secret `secretArn`, through the extension.
 * @throws StoreUnavailableError on no answer in time, 5xx or 429; Error on any other, or no string.
 */
async function readSecretString(secretArn: string, settings: FunctionSettings): Promise<string> {
  const port = settings.PARAMETERS_SECRETS_EXTENSION_HTTP_PORT;
  const url = `http://localhost:${port}/secretsmanager/get?secretId=${encodeURIComponent(secretArn)}`;
  const unavailable = (cause: unknown) =>
    new StoreUnavailableError('The cursor key could not be read.', { cause });
  return withDeadline(SECRET_READ_BOUNDS.answerTimeoutMs, async (signal) => {
    const response = await fetch(url, {
      headers: { 'X-Aws-Parameters-Secrets-Token': settings.AWS_SESSION_TOKEN ?? '' },
      signal,
    }).catch((error: unknown) => {
      throw unavailable(error);
    });
    if (!response.ok) {
      const failure = new Error(
        `Reading the cursor key secret failed: ${response.status} ${await response.text()}`,
      );
      throw response.status === 429 || response.status >= 500 ? unavailable(failure) : failure;
    }
    const { SecretString } = (await response.json()) as { SecretString?: unknown };
    if (typeof SecretString !== 'string') {
      throw new Error('The cursor key secret must hold a string');
    }
    return SecretString;
  });
}

/**
 * The cursor codec keyed from `CURSOR_KEY` (local) or the secret `CURSOR_KEY_SECRET_ARN`, cached.
 * @returns A function giving the codec (rejecting as `readSecretString`, or for a short key).
 * @throws Error at start-up when neither variable is set.
 */
export function cursorCodecFromSettings(
  settings: FunctionSettings = readFunctionSettings(),
): () => Promise<CursorCodec> {
  const localKey = settings.CURSOR_KEY;
  if (localKey) {
    const codec = new CursorCodec(localKey);
    return async () => codec;
  }
  const secretArn = requiredSetting(settings, 'CURSOR_KEY_SECRET_ARN');
  let cached: { codec: CursorCodec; readAt: number } | undefined;
  return async function cursorCodec() {
    if (cached && Date.now() - cached.readAt < CURSOR_KEY_CACHE_SECONDS * 1000) {
      return cached.codec;
    }
    const codec = new CursorCodec(await readSecretString(secretArn, settings));
    cached = { codec, readAt: Date.now() };
    return codec;
  };
}
