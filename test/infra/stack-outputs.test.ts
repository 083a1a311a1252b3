/**
 * The outputs of both stages' stacks, synthesized with cdk.json's flags: the base URLs, the RestApi
 * id, the tables, each usage plan's id, the admin API's and the portal's (their values:
 * test/infra/admin-api.test.ts, test/infra/portal-*.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { STACK_OUTPUTS, STAGES, usagePlanOutputName } from '../../infra/stages.ts';
import { COUNTERS_TABLE, KEYS_TABLE, PETS_TABLE } from '../../shared/dynamodb/tables.ts';
import { PLAN_IDS } from '../../shared/plans.ts';
import { logicalId, PORTAL_OUTPUTS, stageOf, synthesizeStages } from '../support/petstore-app.ts';

synthesizeStages();

describe.each(STAGES)('the %s stage', (stage) => {
  const { stack, template, apiStageRef } = stageOf(stage);

  describe('outputs', () => {
    it('outputs the base URL, the RestApi id, the pets, keys and counters tables, each usage plan id, the admin API and audit table, and the portal', () => {
      const outputs = template().findOutputs('*');
      expect(Object.keys(outputs).sort()).toEqual(
        [
          ...PORTAL_OUTPUTS,
          STACK_OUTPUTS.apiBaseUrl,
          STACK_OUTPUTS.regionalApiBaseUrl,
          STACK_OUTPUTS.regions,
          STACK_OUTPUTS.restApiId,
          STACK_OUTPUTS.petsTableName,
          STACK_OUTPUTS.keysTableName,
          STACK_OUTPUTS.countersTableName,
          STACK_OUTPUTS.dashboardUrl,
          STACK_OUTPUTS.alarmTopicArn,
          STACK_OUTPUTS.adminApiBaseUrl,
          STACK_OUTPUTS.auditTableName,
          STACK_OUTPUTS.auditRetentionDays,
          ...PLAN_IDS.map(usagePlanOutputName),
        ].sort(),
      );
      expect(outputs[STACK_OUTPUTS.restApiId]?.Value).toEqual({ Ref: logicalId(stack(), 'Api') });
      expect(outputs[STACK_OUTPUTS.petsTableName]?.Value).toEqual({
        Ref: logicalId(stack(), PETS_TABLE.constructId),
      });
      expect(outputs[STACK_OUTPUTS.keysTableName]?.Value).toEqual({
        Ref: logicalId(stack(), KEYS_TABLE.constructId),
      });
      expect(outputs[STACK_OUTPUTS.countersTableName]?.Value).toEqual({
        Ref: logicalId(stack(), COUNTERS_TABLE.constructId),
      });
      expect(outputs[STACK_OUTPUTS.apiBaseUrl]?.Value).toEqual({
        'Fn::Join': [
          '',
          [
            'https://',
            { Ref: logicalId(stack(), 'Api') },
            '.execute-api.',
            { Ref: 'AWS::Region' },
            '.',
            { Ref: 'AWS::URLSuffix' },
            '/',
            apiStageRef(),
            '/',
          ],
        ],
      });
      // without a custom domain the region's own address is the one clients call
      expect(outputs[STACK_OUTPUTS.regionalApiBaseUrl]?.Value).toEqual(
        outputs[STACK_OUTPUTS.apiBaseUrl]?.Value,
      );
    });
  });
});
