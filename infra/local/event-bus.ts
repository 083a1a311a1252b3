/**
 * The local stack's stand-in for EventBridge's default bus: an endpoint on loopback that speaks
 * PutEvents (the AWS JSON 1.1 protocol the SDK's client sends), records each event it accepts and
 * hands the record to the gateway, which serves it at `GET /__local/events`
 * (docs/local-stack.md, "Events"). One bus per process, as one default bus per region: the
 * two-region stack runs a process per region. A function whose definition publishes events gets
 * its URL as `EVENTBRIDGE_ENDPOINT` (iam.ts), as its DynamoDB endpoint: no runtime file knows it
 * is local.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type ServerResponse } from 'node:http';
import { listenInBackground } from './ports.ts';

/** An event the bus accepted. */
export interface RecordedEvent {
  /** The id the bus answered with (`EventId`). */
  readonly id: string;
  /** ISO 8601 time it was accepted. */
  readonly time: string;
  /** The region of the caller's signature (its credential scope), e.g. `eu-west-1`. */
  readonly region: string;
  readonly source: string;
  readonly detailType: string;
  /** The detail, parsed. */
  readonly detail: unknown;
}

/** The running bus. */
export interface LocalEventBus {
  /** Its endpoint, e.g. `http://127.0.0.1:40123`. */
  readonly url: string;
  /** Every event accepted so far, oldest first. */
  events(): readonly RecordedEvent[];
}

/** One entry of a PutEvents request, as the client sends it. */
interface PutEventsEntry {
  readonly Source?: unknown;
  readonly DetailType?: unknown;
  readonly Detail?: unknown;
}

/** EventBridge's answer to one entry: an id, or why it was refused. */
type EntryResult = { EventId: string } | { ErrorCode: string; ErrorMessage: string };

let bus: Promise<LocalEventBus> | undefined;

/** The process's bus, started at the first call; it does not keep the process alive. */
export function localEventBus(): Promise<LocalEventBus> {
  bus ??= startBus();
  return bus;
}

async function startBus(): Promise<LocalEventBus> {
  const recorded: RecordedEvent[] = [];
  const server = createServer((request, response) => {
    request.toArray().then(
      (chunks) => {
        const target = String(request.headers['x-amz-target'] ?? '');
        if (request.method !== 'POST' || target !== 'AWSEvents.PutEvents') {
          return answer(response, 400, {
            __type: 'UnknownOperationException',
            message: `The local event bus serves PutEvents only, not ${target || request.method}`,
          });
        }
        const region = /Credential=[^/]+\/\d{8}\/([^/]+)\//.exec(
          String(request.headers.authorization ?? ''),
        )?.[1];
        const entries = entriesOf(Buffer.concat(chunks).toString('utf8'));
        if (!entries || !region) {
          return answer(response, 400, {
            __type: 'ValidationException',
            message: 'A PutEvents request is signed and holds Entries: an array of 1 to 10.',
          });
        }
        const results = entries.map((entry) => accept(entry, region, recorded));
        const FailedEntryCount = results.filter((result) => 'ErrorCode' in result).length;
        answer(response, 200, { Entries: results, FailedEntryCount });
      },
      () => request.socket.destroy(),
    );
  });
  return { url: await listenInBackground(server), events: () => [...recorded] };
}

/** The request's entries, or `undefined` when it is not a PutEvents body of 1 to 10 entries. */
function entriesOf(body: string): PutEventsEntry[] | undefined {
  try {
    const { Entries } = JSON.parse(body) as { Entries?: unknown };
    const valid = Array.isArray(Entries) && Entries.length >= 1 && Entries.length <= 10;
    return valid ? (Entries as PutEventsEntry[]) : undefined;
  } catch {
    return undefined;
  }
}

/** Records `entry` when it is an event EventBridge accepts: a source, a type, a JSON object. */
function accept(entry: PutEventsEntry, region: string, recorded: RecordedEvent[]): EntryResult {
  const { Source: source, DetailType: detailType, Detail } = entry;
  let detail: unknown;
  try {
    detail = JSON.parse(String(Detail));
  } catch {}
  if (typeof source !== 'string' || !source || typeof detailType !== 'string' || !detailType) {
    return { ErrorCode: 'InvalidArgument', ErrorMessage: 'Source and DetailType are required.' };
  }
  if (typeof detail !== 'object' || detail === null || Array.isArray(detail)) {
    return { ErrorCode: 'MalformedDetail', ErrorMessage: 'Detail is malformed.' };
  }
  const id = randomUUID();
  recorded.push({ id, time: new Date().toISOString(), region, source, detailType, detail });
  return { EventId: id };
}

function answer(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'Content-Type': 'application/x-amz-json-1.1' });
  response.end(JSON.stringify(body));
}
