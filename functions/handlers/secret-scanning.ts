/**
 * `POST /secret-scanning/github` (docs/operations.md, "Leaked keys"): GitHub's secret scanning
 * report, signed; each key of this stage it names revoked (`key.revoked`, actor
 * `github-secret-scanning`) and `key.leaked` published; 200 with GitHub's feedback, one element
 * per reported token.
 */
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { invocationBudgetMs, withDeadline } from '../../shared/deadline.ts';
import type { EventPublisher } from '../../shared/events/event-publisher.ts';
import { handlerChain } from '../../shared/http/chain.ts';
import { githubSignature } from '../../shared/http/github-signature.ts';
import { jsonBody } from '../../shared/http/json-body.ts';
import { httpMiddlewares } from '../../shared/http/middleware.ts';
import { jsonResponse } from '../../shared/http/responses.ts';
import { parseOrThrow } from '../../shared/http/validation.ts';
import { KeyChangedError } from '../../shared/keys/key-errors.ts';
import type { KeyService } from '../../shared/keys/key-service.ts';
import { type LeakedKey, revokeLeakedKeys } from '../../shared/keys/leaked-tokens.ts';
import { logger } from '../../shared/logger.ts';
import { countOne, LEAKED_KEY_EVENTS_UNPUBLISHED } from '../../shared/metrics.ts';
import type { GitHubPublicKeys } from '../../shared/secret-scanning/github-public-keys.ts';
import {
  feedbackOf,
  LeakReportsSchema,
  MAX_REPORT_BYTES,
} from '../../shared/secret-scanning/partner-payload.ts';
import { StoreUnavailableError, storeErrorOf } from '../../shared/store-errors.ts';

/** What the endpoint runs on. */
export interface SecretScanningPorts {
  /** The key service of the home region (`homeKeyService`). */
  readonly keys: KeyService;
  readonly publicKeys: GitHubPublicKeys;
  readonly events: EventPublisher;
  /** Epoch milliseconds. @default Date.now */
  readonly now?: () => number;
}

/** The Lambda handler of GitHub's secret scanning reports. */
export function secretScanningHandler(ports: SecretScanningPorts) {
  const now = ports.now ?? Date.now;
  return handlerChain<APIGatewayProxyEvent, APIGatewayProxyResult>(
    async function reportLeakedTokens(event, context) {
      const reports = parseOrThrow(LeakReportsSchema, event.body, 'body', 'invalid_body');
      return withDeadline(invocationBudgetMs(context), async (signal) => {
        const { requestId } = event.requestContext;
        const outcome = await revokeLeakedKeys(ports.keys, reports, {
          requestId,
          signal,
          nowMs: now(),
        });
        await publishLeaked(ports.events, outcome.revoked, signal);
        if (outcome.failed.length > 0) throw revocationsFailed(outcome.failed);
        return jsonResponse(200, outcome.verdicts.map(feedbackOf));
      });
    },
    httpMiddlewares({
      admission: githubSignature(ports.publicKeys),
      body: jsonBody(MAX_REPORT_BYTES),
    }),
  );
}

/**
 * Publishes `key.leaked` for each key revoked now. A failure changes no answer: the keys stay
 * revoked, their `key.revoked` entries (actor `github-secret-scanning`, the URL in the reason)
 * say which, and the failure is logged and counted (`LeakedKeyEventsUnpublished`, alarmed).
 */
async function publishLeaked(
  events: EventPublisher,
  revoked: readonly LeakedKey[],
  signal: AbortSignal,
): Promise<void> {
  if (revoked.length === 0) return;
  const published = revoked.map((detail) => ({
    source: 'petstore.keys',
    detailType: 'key.leaked',
    detail: { ...detail },
  }));
  try {
    await events.publish(published, { signal });
  } catch (error) {
    const keyIds = revoked.map(({ keyId }) => keyId);
    logger.error('key.leaked not published; the keys stay revoked', { keyIds, error });
    countOne(LEAKED_KEY_EVENTS_UNPUBLISHED);
  }
}

/**
 * The error of a report whose revocations failed in part (the others stand): 503 for a store
 * that failed or changes that kept racing, GitHub sending the report again; else the first
 * failure as thrown (a bug: 500).
 */
function revocationsFailed(failed: readonly { keyId: string; error: unknown }[]): Error {
  const unavailable = failed.every(
    ({ error }) =>
      error instanceof KeyChangedError || storeErrorOf(error) instanceof StoreUnavailableError,
  );
  if (!unavailable) return failed[0]?.error as Error;
  return new StoreUnavailableError(
    `${failed.length} reported keys could not be revoked now (the others are).`,
    { cause: failed[0]?.error },
  );
}
