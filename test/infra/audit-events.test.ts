/**
 * The audit events' pipe (infra/constructs/audit-events.ts) on a stack of its own: its source,
 * filter, target and template, and a role that may do nothing but read the stream and put events
 * on the default bus; and on each stage's stack, the audit table's.
 */
import { App, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { AttributeType, StreamViewType, Table } from 'aws-cdk-lib/aws-dynamodb';
import { describe, expect, it } from 'vitest';
import {
  AUDIT_EVENT_DETAIL,
  AUDIT_EVENT_SOURCE,
  AuditEvents,
  auditDetailTemplate,
} from '../../infra/constructs/audit-events.ts';
import { STAGES } from '../../infra/stages.ts';
import { logicalId, stageOf, synthesizeStages } from '../support/petstore-app.ts';

const DETAIL = { entryId: 'S', keyId: 'S', actor: { id: 'S' }, changes: 'M' } as const;

/** A stack with an audit table (with a stream of new images, unless told) and its pipe. */
function auditStack(withStream = true) {
  const stack = new Stack(new App(), 'Audit', {
    env: { account: '123456789012', region: 'eu-west-1' },
  });
  const table = new Table(stack, 'AuditTable', {
    partitionKey: { name: 'entryId', type: AttributeType.STRING },
    stream: withStream ? StreamViewType.NEW_IMAGE : undefined,
  });
  new AuditEvents(stack, 'AuditEvents', { table });
  return { stack, template: Template.fromStack(stack) };
}

describe('AuditEvents', () => {
  it('pipes each new audit entry from the table stream to the default bus as a petstore.keys event', () => {
    // GIVEN an audit table with a stream WHEN the pipe is added
    const { stack, template } = auditStack();

    // THEN one pipe reads the stream from its oldest record, inserts only, into the default bus
    template.resourceCountIs('AWS::Pipes::Pipe', 1);
    template.hasResourceProperties('AWS::Pipes::Pipe', {
      Source: { 'Fn::GetAtt': [Match.stringLikeRegexp('^AuditTable'), 'StreamArn'] },
      SourceParameters: {
        DynamoDBStreamParameters: { StartingPosition: 'TRIM_HORIZON' },
        FilterCriteria: { Filters: [{ Pattern: '{"eventName":["INSERT"]}' }] },
      },
      Target: stack.resolve(
        stack.formatArn({ service: 'events', resource: 'event-bus', resourceName: 'default' }),
      ),
      TargetParameters: {
        EventBridgeEventBusParameters: {
          Source: AUDIT_EVENT_SOURCE,
          DetailType: '$.dynamodb.NewImage.event.S',
        },
        InputTemplate: auditDetailTemplate(AUDIT_EVENT_DETAIL),
      },
    });
    // AND no function of the project's own is in between
    template.resourceCountIs('AWS::Lambda::Function', 0);
  });

  it('builds a detail of the listed attributes only: strings quoted, fields of maps, maps as they are', () => {
    const detail = auditDetailTemplate(DETAIL);

    expect(detail).toBe(
      '{"entryId": "<$.dynamodb.NewImage.entryId.S>", "keyId": "<$.dynamodb.NewImage.keyId.S>", "actor": {"id": "<$.dynamodb.NewImage.actor.M.id.S>"}, "changes": <$.dynamodb.NewImage.changes.M>}',
    );
  });

  it('gives the pipe a role that may only read the stream and put events on the default bus', () => {
    const { stack, template } = auditStack();

    // THEN the role trusts EventBridge Pipes of this account only
    template.hasResourceProperties('AWS::IAM::Role', {
      AssumeRolePolicyDocument: {
        Statement: [
          {
            Action: 'sts:AssumeRole',
            Effect: 'Allow',
            Principal: { Service: 'pipes.amazonaws.com' },
            Condition: { StringEquals: { 'aws:SourceAccount': '123456789012' } },
          },
        ],
      },
    });
    // AND its one policy allows the stream reads and PutEvents on the default bus, nothing else
    const policies = Object.values(template.findResources('AWS::IAM::Policy'));
    expect(policies).toHaveLength(1);
    const statements = policies[0]?.Properties.PolicyDocument.Statement as {
      Action: string | string[];
      Resource: unknown;
    }[];
    const streamArn = { 'Fn::GetAtt': [expect.stringMatching(/^AuditTable/), 'StreamArn'] };
    expect(statements).toEqual([
      { Action: 'dynamodb:ListStreams', Effect: 'Allow', Resource: '*' },
      {
        Action: ['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator'],
        Effect: 'Allow',
        Resource: streamArn,
      },
      {
        Action: 'events:PutEvents',
        Effect: 'Allow',
        Resource: stack.resolve(
          stack.formatArn({ service: 'events', resource: 'event-bus', resourceName: 'default' }),
        ),
      },
    ]);
  });

  it('is created after its role’s policy, so that it never starts without its grants', () => {
    const { template } = auditStack();

    const [pipe] = Object.values(template.findResources('AWS::Pipes::Pipe'));
    const [policyId] = Object.keys(template.findResources('AWS::IAM::Policy'));
    expect(pipe?.DependsOn).toContain(policyId);
  });

  it('refuses an audit table without a stream, saying what it needs', () => {
    expect(() => auditStack(false)).toThrow('stream: StreamViewType.NEW_IMAGE');
  });
});

synthesizeStages();

describe.each(STAGES)('the %s stage', (stage) => {
  const { stack, template } = stageOf(stage);

  it('pipes its audit table’s stream of new images to the default bus, with no function on the stream', () => {
    const auditTable = logicalId(stack(), 'AuditTable');

    expect(template().toJSON().Resources[auditTable].Properties.StreamSpecification).toEqual({
      StreamViewType: 'NEW_IMAGE',
    });
    template().resourceCountIs('AWS::Pipes::Pipe', 1);
    template().hasResourceProperties('AWS::Pipes::Pipe', {
      Source: { 'Fn::GetAtt': [auditTable, 'StreamArn'] },
      TargetParameters: { EventBridgeEventBusParameters: { Source: AUDIT_EVENT_SOURCE } },
    });
    template().resourceCountIs('AWS::Lambda::EventSourceMapping', 0);
  });
});
