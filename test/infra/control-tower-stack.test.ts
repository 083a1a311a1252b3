/**
 * What AWS Control Tower's controls ask of each stage's stack (its Guard rules:
 * test/infra/control-tower.test.ts): the stage's KMS key on every table and log group, execution
 * logging at ERROR without data tracing, a year of logs, and an invoke role in place of Lambda
 * permissions.
 */
import { describe, expect, it } from 'vitest';
import { stageKeyAlias } from '../../infra/constructs/stage-key.ts';
import { STAGE_SETTINGS, STAGES } from '../../infra/stages.ts';
import { TABLES } from '../../shared/dynamodb/tables.ts';
import { API_STAGE_NAME } from '../../shared/paths.ts';
import { logicalId, petstore, synthesizeStages, templates } from '../support/petstore-app.ts';

synthesizeStages();

describe.each(STAGES)('the %s stack, as the controls ask', (stage) => {
  const stack = () => petstore.stacks[stage];
  const template = () => templates[stage];
  const keyRef = () => ({ 'Fn::GetAtt': [logicalId(stack(), 'Key'), 'Arn'] });

  it('has one customer managed key of its own: rotated, aliased after the stage, kept as its tables', () => {
    const key = template().toJSON().Resources[logicalId(stack(), 'Key')];

    expect(key?.Type).toBe('AWS::KMS::Key');
    expect(key?.Properties.EnableKeyRotation).toBe(true);
    expect(key?.DeletionPolicy).toBe(stage === 'production' ? 'Retain' : 'Delete');
    template().hasResourceProperties('AWS::KMS::Alias', {
      AliasName: stageKeyAlias(stage),
      TargetKeyId: keyRef(),
    });
    const [table] = Object.values(template().findResources('AWS::DynamoDB::Table'));
    expect(key?.DeletionPolicy).toBe(table?.DeletionPolicy);
  });

  it('encrypts every table and every log group with it, and keeps every log group a year', () => {
    const tables = Object.values(template().findResources('AWS::DynamoDB::Table'));
    const logGroups = Object.values(template().findResources('AWS::Logs::LogGroup'));

    expect(tables).toHaveLength(TABLES.length);
    for (const table of tables) {
      expect(table.Properties.SSESpecification).toEqual({
        KMSMasterKeyId: keyRef(),
        SSEEnabled: true,
        SSEType: 'KMS',
      });
    }
    expect(logGroups.length).toBeGreaterThanOrEqual(6);
    for (const logGroup of logGroups) {
      expect(logGroup.Properties.KmsKeyId).toEqual(keyRef());
      expect(logGroup.Properties.RetentionInDays).toBe(STAGE_SETTINGS[stage].logRetentionDays);
    }
    expect(STAGE_SETTINGS[stage].logRetentionDays).toBe(365);
  });

  it('logs the execution of every method at ERROR, without data tracing, to a log group of its own', () => {
    template().hasResourceProperties('AWS::ApiGateway::Stage', {
      StageName: API_STAGE_NAME,
      MethodSettings: [
        { ResourcePath: '/*', HttpMethod: '*', LoggingLevel: 'ERROR', DataTraceEnabled: false },
      ],
    });
    template().hasResourceProperties('AWS::Logs::LogGroup', {
      LogGroupName: {
        'Fn::Join': [
          '',
          ['API-Gateway-Execution-Logs_', { Ref: logicalId(stack(), 'Api') }, `/${API_STAGE_NAME}`],
        ],
      },
    });
  });

  it('invokes its functions through an invoke role, with no Lambda permission', () => {
    template().resourceCountIs('AWS::Lambda::Permission', 0);
    const invokeRole = logicalId(stack(), 'Api/InvokeRole');
    // The admin and portal APIs' methods go through their own invoke roles.
    const roleOfApi = new Map(
      ['Api', 'AdminApi', 'Portal/Api'].map((api) => [
        logicalId(stack(), api),
        logicalId(stack(), `${api}/InvokeRole`),
      ]),
    );
    for (const method of Object.values(template().findResources('AWS::ApiGateway::Method'))) {
      if (method.Properties.Integration.Type !== 'AWS_PROXY') continue;
      expect(method.Properties.Integration.Credentials).toEqual({
        'Fn::GetAtt': [roleOfApi.get(method.Properties.RestApiId.Ref), 'Arn'],
      });
    }
    template().hasResourceProperties('AWS::ApiGateway::Authorizer', {
      AuthorizerCredentials: { 'Fn::GetAtt': [invokeRole, 'Arn'] },
    });
  });
});
