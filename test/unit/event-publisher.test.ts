/**
 * The `EventPublisher` port on EventBridge (shared/eventbridge/eventbridge-publisher.ts): events
 * on the local stack's bus (infra/local/event-bus.ts) through the SDK's own client, ten to a call;
 * the entries EventBridge failed sent again; a failing bus an EventsUnavailableError, a refused
 * grant the SDK's error (aws-sdk-client-mock, for what the local bus cannot do).
 */
import {
  EventBridgeClient,
  PutEventsCommand,
  type PutEventsCommandInput,
} from '@aws-sdk/client-eventbridge';
import { type AwsClientStub, mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { localEventBus } from '../../infra/local/event-bus.ts';
import { grantedEnvironment } from '../../infra/local/iam.ts';
import { AUTHORIZER, routeOf } from '../../infra/routes.ts';
import {
  EventBridgePublisher,
  eventBridgeClientOf,
} from '../../shared/eventbridge/eventbridge-publisher.ts';
import { EventsUnavailableError } from '../../shared/events/event-errors.ts';
import type { ServiceEvent } from '../../shared/events/event-publisher.ts';
import { readSettings } from '../../shared/settings.ts';

const LOCAL_CREDENTIALS = { AWS_ACCESS_KEY_ID: 'local', AWS_SECRET_ACCESS_KEY: 'local' };

function event(n: number): ServiceEvent {
  return { source: 'petstore.test', detailType: 'test.published', detail: { n } };
}

describe('EventBridgePublisher on the local bus', () => {
  it('puts every event on the bus, ten to a PutEvents call, with its source, type and detail', async () => {
    const bus = await localEventBus();
    const settings = readSettings({
      ...LOCAL_CREDENTIALS,
      EVENTBRIDGE_ENDPOINT: bus.url,
      AWS_REGION: 'eu-west-1',
    });
    const client = eventBridgeClientOf(settings);
    const calls: number[] = [];
    client.middlewareStack.add(
      (next, context) => (args) => {
        if (context.commandName === 'PutEventsCommand') {
          calls.push((args.input as PutEventsCommandInput).Entries?.length ?? 0);
        }
        return next(args);
      },
      { step: 'initialize' },
    );
    const before = bus.events().length;

    await new EventBridgePublisher(client).publish(Array.from({ length: 23 }, (_, n) => event(n)));

    const published = bus.events().slice(before);
    expect(calls.sort()).toEqual([10, 10, 3].sort());
    expect(
      published.map(({ detail }) => (detail as { n: number }).n).sort((a, b) => a - b),
    ).toEqual(Array.from({ length: 23 }, (_, n) => n));
    expect(published[0]).toMatchObject({
      source: 'petstore.test',
      detailType: 'test.published',
      region: 'eu-west-1',
    });
  });

  it('gives the bus to the functions that publish events and to no other', async () => {
    const env = {
      DYNAMODB_ENDPOINT: 'http://127.0.0.1:9',
      EVENTBRIDGE_ENDPOINT: 'http://x.invalid',
    };
    const publisher = { ...AUTHORIZER, publishesEvents: true };

    const granted = await grantedEnvironment(publisher, env);
    const others = await Promise.all(
      [AUTHORIZER, routeOf('createPet')].map((fn) => grantedEnvironment(fn, env)),
    );

    expect(granted.EVENTBRIDGE_ENDPOINT).toBe((await localEventBus()).url);
    for (const other of others) expect(other.EVENTBRIDGE_ENDPOINT).toBeUndefined();
  });
});

describe('EventBridgePublisher when EventBridge fails', () => {
  let eventBridge: AwsClientStub<EventBridgeClient>;
  beforeEach(() => {
    eventBridge = mockClient(EventBridgeClient);
  });
  afterEach(() => eventBridge.restore());
  const publisher = () => new EventBridgePublisher(new EventBridgeClient({ region: 'us-east-1' }));

  it('sends again only the entries EventBridge failed', async () => {
    eventBridge
      .on(PutEventsCommand)
      .resolvesOnce({
        FailedEntryCount: 1,
        Entries: [{ EventId: 'a' }, { ErrorCode: 'ThrottlingException' }, { EventId: 'c' }],
      })
      .resolves({ FailedEntryCount: 0, Entries: [{ EventId: 'b' }] });

    await publisher().publish([event(1), event(2), event(3)]);

    const sent = eventBridge.commandCalls(PutEventsCommand).map((call) => call.args[0].input);
    expect(sent.map((input) => input.Entries?.map((entry) => entry.Detail))).toEqual([
      ['{"n":1}', '{"n":2}', '{"n":3}'],
      ['{"n":2}'],
    ]);
  });

  it('throws EventsUnavailableError when entries keep failing, after three calls', async () => {
    eventBridge
      .on(PutEventsCommand)
      .resolves({ FailedEntryCount: 1, Entries: [{ ErrorCode: 'InternalFailure' }] });

    await expect(publisher().publish([event(1)])).rejects.toThrow(EventsUnavailableError);
    expect(eventBridge.commandCalls(PutEventsCommand)).toHaveLength(3);
  });

  it('throws EventsUnavailableError for a bus that throttles, the SDK error for a missing grant', async () => {
    const throttled = Object.assign(new Error('Rate exceeded'), {
      name: 'ThrottlingException',
      $metadata: { httpStatusCode: 400 },
    });
    const denied = Object.assign(new Error('not authorized to perform: events:PutEvents'), {
      name: 'AccessDeniedException',
      $metadata: { httpStatusCode: 400 },
    });
    eventBridge.on(PutEventsCommand).rejectsOnce(throttled).rejectsOnce(denied);

    await expect(publisher().publish([event(1)])).rejects.toThrow(EventsUnavailableError);
    await expect(publisher().publish([event(1)])).rejects.toBe(denied);
  });
});
