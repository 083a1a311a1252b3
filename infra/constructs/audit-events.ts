/**
 * Audit entries published to the account's default EventBridge bus (docs/operations.md, "Audit
 * events"): the audit table's DynamoDB stream into an EventBridge Pipe, AWS's managed path, with
 * no Lambda function of the project's own in between.
 */
import { Stack, Validations } from 'aws-cdk-lib';
import { type ITable, StreamViewType } from 'aws-cdk-lib/aws-dynamodb';
import { Effect, PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { CfnPipe } from 'aws-cdk-lib/aws-pipes';
import { Construct } from 'constructs';
import type { AuditEntry } from '../../shared/audit/entry.ts';

/** The stream the audit table needs for the pipe: each new entry's whole item. */
export const AUDIT_STREAM_VIEW = StreamViewType.NEW_IMAGE;

/** The `source` of every audit event on the bus: what a rule matches on. */
export const AUDIT_EVENT_SOURCE = 'petstore.keys';

/**
 * The shape of an event's detail, read from the stream record's new image: each field names the
 * DynamoDB type of the item's attribute of the same name (`S` string, `N` number, `M` a map,
 * passed on in DynamoDB's JSON), or the fields to take from a map attribute.
 */
export interface AuditDetailShape {
  readonly [field: string]: 'S' | 'N' | 'M' | AuditDetailShape;
}

/**
 * What an audit event's detail holds of its entry (shared/audit/entry.ts): every attribute each
 * entry has, the actor by its type and id. The entry's optional parts (its reason, the caller's
 * address and user agent, the actor's name) stay in the audit table: what Pipes makes of a path
 * a record lacks is not documented. Nothing secret: no entry holds a token or its hash.
 */
export const AUDIT_EVENT_DETAIL = {
  entryId: 'S',
  at: 'S',
  event: 'S',
  keyId: 'S',
  actor: { type: 'S', id: 'S' },
  requestId: 'S',
  changes: 'M',
} as const satisfies Partial<Record<keyof AuditEntry, AuditDetailShape[string]>>;

/** Props of {@link AuditEvents}. */
export interface AuditEventsProps {
  /** The audit table; its stream must carry new images (`NEW_IMAGE` or `NEW_AND_OLD_IMAGES`). */
  readonly table: ITable;
}

/**
 * An EventBridge Pipe from the audit table's stream to the default event bus: each new entry
 * (INSERT; the expiry of an old one, a REMOVE, is filtered out) becomes one event, source
 * {@link AUDIT_EVENT_SOURCE}, detail-type the entry's event (`key.plan_changed`, …), detail
 * {@link AUDIT_EVENT_DETAIL}. The pipe reads from the oldest record the stream keeps (24 h), so entries written
 * while it is created are not lost, and retries a failed delivery until the record ages out.
 *
 * Its role (assumed by `pipes.amazonaws.com` for this account only) may read the stream (and
 * decrypt it when the table has a key of its own) and put events on the default bus: nothing else.
 */
export class AuditEvents extends Construct {
  /** The pipe. */
  readonly pipe: CfnPipe;
  /** The pipe's role. */
  readonly role: Role;
  /** The ARN of the bus the events go to: the account's default bus in the stack's region. */
  readonly eventBusArn: string;

  constructor(scope: Construct, id: string, props: AuditEventsProps) {
    super(scope, id);
    const streamArn = props.table.tableStreamArn;
    if (!streamArn) {
      throw new Error(
        'AuditEvents needs the audit table to have a stream with new images (stream: StreamViewType.NEW_IMAGE)',
      );
    }
    const stack = Stack.of(this);
    this.eventBusArn = stack.formatArn({
      service: 'events',
      resource: 'event-bus',
      resourceName: 'default',
    });
    this.role = new Role(this, 'Role', {
      description: 'EventBridge Pipes: audit table stream to the default event bus',
      assumedBy: new ServicePrincipal('pipes.amazonaws.com', {
        conditions: { StringEquals: { 'aws:SourceAccount': stack.account } },
      }),
    });
    props.table.grantStreamRead(this.role);
    Validations.of(this.role).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'dynamodb:ListStreams supports no resource-level permission (Resource "*", as grantStreamRead writes it); the stream reads name the audit table\'s stream and PutEvents the default bus.',
    });
    this.role.addToPrincipalPolicy(
      new PolicyStatement({
        effect: Effect.ALLOW,
        actions: ['events:PutEvents'],
        resources: [this.eventBusArn],
      }),
    );
    this.pipe = new CfnPipe(this, 'Pipe', {
      description: 'Each audit entry of the keys to the default event bus (source petstore.keys)',
      roleArn: this.role.roleArn,
      source: streamArn,
      sourceParameters: {
        dynamoDbStreamParameters: { startingPosition: 'TRIM_HORIZON', batchSize: 10 },
        filterCriteria: { filters: [{ pattern: JSON.stringify({ eventName: ['INSERT'] }) }] },
      },
      target: this.eventBusArn,
      targetParameters: {
        eventBridgeEventBusParameters: {
          source: AUDIT_EVENT_SOURCE,
          detailType: '$.dynamodb.NewImage.event.S',
        },
        inputTemplate: auditDetailTemplate(AUDIT_EVENT_DETAIL),
      },
    });
    // The pipe starts reading as soon as it exists: its role's grants must be in place by then.
    this.pipe.node.addDependency(this.role);
  }
}

/**
 * The pipe's input template: a JSON object of the shape's fields, each read from the stream
 * record's new image (`<$.dynamodb.NewImage.keyId.S>`); strings and numbers quoted, as the Pipes
 * documentation asks of values that are strings in the record, maps unquoted.
 *
 * @param path Where the shape's attributes are in the record. @default '$.dynamodb.NewImage'
 * @example auditDetailTemplate({ keyId: 'S' }) === '{"keyId": "<$.dynamodb.NewImage.keyId.S>"}'
 */
export function auditDetailTemplate(shape: AuditDetailShape, path = '$.dynamodb.NewImage'): string {
  const members = Object.entries(shape).map(([name, type]) => {
    const at = `${path}.${name}`;
    if (typeof type === 'object') return `"${name}": ${auditDetailTemplate(type, `${at}.M`)}`;
    const variable = `<${at}.${type}>`;
    return `"${name}": ${type === 'M' ? variable : `"${variable}"`}`;
  });
  return `{${members.join(', ')}}`;
}
