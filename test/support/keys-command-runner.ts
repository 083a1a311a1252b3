/**
 * The keys command run in-process against admin APIs served in-process (the local admin gateway
 * of infra/local/admin-gateway.ts with its SigV4 check, each operation's handler on the test's
 * key service): the "local stack"'s, whose key service makes no API Gateway call, and a
 * "deployed stage"'s, whose key service calls API Gateway (mocked) with the usage plans the
 * mocked stack outputs name. The command signs with the run's credentials as the local stack's operator.
 */
import { APIGatewayClient } from '@aws-sdk/client-api-gateway';
import { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import { type KeysCommandDependencies, runKeysCommand } from '../../infra/cli/keys/keys-program.ts';
import { type LocalAdminGateway, startAdminGateway } from '../../infra/local/admin-gateway.ts';
import { LOCAL_OPERATOR, LOCAL_REGION } from '../../infra/local/stack-files.ts';
import { stackName } from '../../infra/stages.ts';
import { ApiGatewayKeyGateway } from '../../shared/apigateway/api-key-gateway.ts';
import { KeyService, type KeyServicePorts } from '../../shared/keys/key-service.ts';
import { readSettings, requiredSetting } from '../../shared/settings.ts';
import { adminHandlersOf } from './admin-handlers.ts';
import { restApiId, usagePlanId } from './stage-mocks.ts';

/** The credentials the command signs with: the run's, standing for the local stack's operator. */
export function operatorCredentials(): { accessKeyId: string; secretAccessKey: string } {
  const settings = readSettings();
  return {
    accessKeyId: requiredSetting(settings, 'AWS_ACCESS_KEY_ID'),
    secretAccessKey: requiredSetting(settings, 'AWS_SECRET_ACCESS_KEY'),
  };
}

/** An admin API on 127.0.0.1 whose operations run on `service`, checking SigV4 as locally. */
export function startAdminApi(service: KeyService): Promise<LocalAdminGateway> {
  return startAdminGateway({
    port: 0,
    principals: [{ ...operatorCredentials(), ...LOCAL_OPERATOR }],
    region: LOCAL_REGION,
    handlers: adminHandlersOf(service),
  });
}

/**
 * The admin APIs of the local stack and of a deployed stage (staging's stack name, the mocked
 * outputs' RestApi and usage plans, tokens of staging) on the same tables.
 */
export async function startAdminApis(
  ports: Omit<KeyServicePorts, 'tokenStage' | 'apiGateway'>,
): Promise<{ local: LocalAdminGateway; stage: LocalAdminGateway }> {
  const local = await startAdminApi(new KeyService({ ...ports, tokenStage: 'local' }));
  const stage = await startAdminApi(
    new KeyService({
      ...ports,
      tokenStage: 'staging',
      apiGateway: new ApiGatewayKeyGateway(new APIGatewayClient({ region: 'us-east-1' }), {
        stackName: stackName('staging'),
        restApiId,
        usagePlanIds: {
          free: usagePlanId('free'),
          pro: usagePlanId('pro'),
          business: usagePlanId('business'),
        },
      }),
    }),
  );
  return { local, stage };
}

/** The local stack as the command sees it: its admin API, and the operator's credentials. */
export function localStackAt(adminApiUrl: string): KeysCommandDependencies['local'] {
  return {
    adminApiUrl,
    credentialsFile: '.petstore/dynamodb.env',
    credentials: operatorCredentials(),
    region: LOCAL_REGION,
  };
}

/**
 * The command on the local stack `local`: `keysCommand(args, local?)` runs it and returns its exit
 * code, stdout and stderr as lines, and the last line of stdout as `token`.
 */
export function keysCommandOn(local: KeysCommandDependencies['local']) {
  return async function keysCommand(
    args: string[],
    target: KeysCommandDependencies['local'] = local,
  ) {
    const stdout: string[] = [];
    const stderr: string[] = [];
    const dependencies: KeysCommandDependencies = {
      local: target,
      // The operator signs for a stage with the same credentials as for the local stack.
      stageCredentials: local.credentials ?? { accessKeyId: '', secretAccessKey: '' },
      cloudFormation: new CloudFormationClient({ region: 'us-east-1' }),
      stdout: (text) => stdout.push(...text.split('\n')),
      stderr: (text) => stderr.push(...text.split('\n')),
    };
    const code = await runKeysCommand(args, dependencies);
    return { code, stdout, stderr, token: stdout.at(-1) ?? '' };
  };
}
