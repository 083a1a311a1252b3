/** The `EventPublisher` port on EventBridge's default bus (PutEvents). */
import {
  EventBridgeClient,
  PutEventsCommand,
  type PutEventsRequestEntry,
} from '@aws-sdk/client-eventbridge';
import { DYNAMODB_CALL_BOUNDS, LOCAL_REGION } from '../dynamodb/clients.ts';
import { EventsUnavailableError } from '../events/event-errors.ts';
import type { EventPublisher, ServiceEvent } from '../events/event-publisher.ts';
import { requiredSetting, type Settings } from '../settings.ts';
import { StoreUnavailableError, storeErrorOf } from '../store-errors.ts';

/** Entries of one PutEvents call: EventBridge's limit. */
const ENTRIES_PER_CALL = 10;

/** Calls for the entries EventBridge failed (`FailedEntryCount`), the first included. */
const ENTRY_ATTEMPTS = 3;

/**
 * Settings of another AWS client of a function (Cognito's, EventBridge's), its calls bounded as
 * DynamoDB's: of the local stand-in at `endpoint` (signed with the settings' credentials), else
 * of AWS in the function's region.
 * @throws Error naming the variable when an endpoint comes without credentials.
 */
export function boundedClientConfig(settings: Settings, endpoint: string | undefined) {
  return {
    maxAttempts: DYNAMODB_CALL_BOUNDS.maxAttempts,
    requestHandler: {
      connectionTimeout: DYNAMODB_CALL_BOUNDS.connectionTimeoutMs,
      requestTimeout: DYNAMODB_CALL_BOUNDS.requestTimeoutMs,
      // Without it the SDK only logs a warning and keeps waiting.
      throwOnRequestTimeout: true,
    },
    ...(endpoint && {
      endpoint,
      region: settings.AWS_REGION ?? LOCAL_REGION,
      credentials: {
        accessKeyId: requiredSetting(settings, 'AWS_ACCESS_KEY_ID'),
        secretAccessKey: requiredSetting(settings, 'AWS_SECRET_ACCESS_KEY'),
      },
    }),
  };
}

/**
 * A client of `EVENTBRIDGE_ENDPOINT` with the settings' credentials (the local stack's bus), else
 * of AWS in the function's region; each call bounded as DynamoDB's are (3 s to connect, 5 s an
 * attempt, 3 attempts).
 * @throws Error naming the variable when an endpoint comes without credentials.
 */
export function eventBridgeClientOf(settings: Settings): EventBridgeClient {
  return new EventBridgeClient(boundedClientConfig(settings, settings.EVENTBRIDGE_ENDPOINT));
}

/** Events on the default bus of the client's region, ten to a call, the calls in parallel. */
export class EventBridgePublisher implements EventPublisher {
  constructor(private readonly client: EventBridgeClient) {}

  /** This publisher on {@link eventBridgeClientOf}. */
  static from(settings: Settings): EventBridgePublisher {
    return new EventBridgePublisher(eventBridgeClientOf(settings));
  }

  async publish(events: readonly ServiceEvent[], options: { signal?: AbortSignal } = {}) {
    const entries = events.map(
      (event): PutEventsRequestEntry => ({
        Source: event.source,
        DetailType: event.detailType,
        Detail: JSON.stringify(event.detail),
      }),
    );
    const calls = [];
    for (let at = 0; at < entries.length; at += ENTRIES_PER_CALL) {
      calls.push(this.put(entries.slice(at, at + ENTRIES_PER_CALL), options.signal));
    }
    await Promise.all(calls);
  }

  /** One call's entries, those EventBridge failed sent again. @throws EventsUnavailableError */
  private async put(entries: PutEventsRequestEntry[], signal?: AbortSignal): Promise<void> {
    let pending = entries;
    for (let attempt = 1; ; attempt++) {
      const { Entries = [] } = await this.client
        .send(new PutEventsCommand({ Entries: pending }), { abortSignal: signal })
        .catch((error: unknown) => Promise.reject(unavailable(error)));
      const failed = pending.filter((_, at) => Entries[at]?.ErrorCode !== undefined);
      if (failed.length === 0) return;
      if (attempt === ENTRY_ATTEMPTS) {
        const codes = [...new Set(Entries.flatMap((entry) => entry.ErrorCode ?? []))];
        throw new EventsUnavailableError(`EventBridge refused ${failed.length} events (${codes}).`);
      }
      pending = failed;
    }
  }
}

/** `error` as EventsUnavailableError when the SDK calls it a failing service, else itself (a bug). */
function unavailable(error: unknown): unknown {
  if (!(storeErrorOf(error) instanceof StoreUnavailableError)) return error;
  return new EventsUnavailableError('The event bus is unavailable or did not answer in time.', {
    cause: error,
  });
}
