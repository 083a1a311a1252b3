/**
 * What a synthesized function's role may call, against what its route table row says: the
 * DynamoDB and API Gateway grants of the admin and portal functions, as (action, resource) pairs.
 */
import type { Template } from 'aws-cdk-lib/assertions';
import type { FunctionDefinition } from '../../infra/routes.ts';
import { resolve } from './resource-policy.ts';

type Statement = Record<string, unknown>;

/**
 * The `<action> <resource>` pairs that the policy of the role `roleId` allows for actions of a
 * service matching `services`, API Gateway resources shortened to their path, sorted. Pairs, since
 * CDK merges statements that share actions or resources.
 */
export function grantedPairs(
  template: Template,
  roleId: string,
  services: RegExp = /^(dynamodb|apigateway):/,
): string[] {
  const role = JSON.stringify([{ Ref: roleId }]);
  const policy = Object.values(template.findResources('AWS::IAM::Policy')).find(
    (each) => JSON.stringify(each.Properties.Roles) === role,
  );
  const statements = (policy?.Properties.PolicyDocument.Statement ?? []) as Statement[];
  return statements
    .filter((statement) => statement.Effect === 'Allow')
    .flatMap((statement) =>
      [statement.Action]
        .flat()
        .flatMap((action) =>
          [statement.Resource].flat().map((resource) => `${action} ${resolve(resource)}`),
        ),
    )
    .filter((pair) => services.test(pair))
    .map((pair) => pair.replace(/ arn:[^ ]*:apigateway:[^:]*::/, ' '))
    .sort();
}

/**
 * The pairs a row's `tableAccess` and `apiGatewayAccess` ask for, in a stage of one region (no
 * look-up of other regions' usage plans), as {@link grantedPairs} reads them.
 *
 * @param arnOf The `Fn::GetAtt` of a table's ARN by its construct id.
 */
export function rowPairs(
  definition: FunctionDefinition,
  arnOf: (tableId: string) => unknown,
): string[] {
  const pairs = [
    ...definition.tableAccess.flatMap(({ table, actions, index }) => {
      const arn = resolve(arnOf(table.constructId));
      const resources = index ? [arn, `${arn}/index/${index}`] : [arn];
      return actions.flatMap((action) => resources.map((resource) => `${action} ${resource}`));
    }),
    ...(definition.apiGatewayAccess ?? [])
      .filter(({ otherRegionsOnly }) => !otherRegionsOnly)
      .flatMap(({ method, paths }) => paths.map((path) => `apigateway:${method} ${path}`)),
  ];
  // A call two of the row's accesses name is one grant in the policy.
  return [...new Set(pairs)].sort();
}
