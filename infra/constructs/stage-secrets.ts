/**
 * The stage's secrets (`functionSecrets()`) in its stacks: one region's as 1.0.0 made them; with
 * several regions, the home region's secret with a Secrets Manager replica in every other region,
 * so that a cursor signed in one region verifies in another (docs/operations.md, "Regions").
 */
import { ArnFormat, type RemovalPolicy, type Stack, Validations } from 'aws-cdk-lib';
import { type IKey, Key } from 'aws-cdk-lib/aws-kms';
import { type ISecret, Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { SecretDefinition } from '../../shared/secret-definitions.ts';
import { functionSecrets } from '../routes.ts';
import { type StageName, stackName } from '../stages.ts';
import { stageKeyAliasArn } from './stage-tables.ts';

/** What {@link createStageSecrets} builds from. */
export interface StageSecretsProps {
  /** The stage. */
  readonly stage: StageName;
  /** The stage's regions, the home region first; one (or none: environment-agnostic) by default. */
  readonly regions: readonly string[];
  /** The stage's KMS key of the stack's region. */
  readonly key: IKey;
  /** What happens to the secrets when the home stack goes. */
  readonly removalPolicy: RemovalPolicy;
}

/**
 * The physical name of a secret of a stage of several regions, the same in each (the replicas
 * keep their primary's name): `petstore-<stage>-<constructId>`, e.g.
 * `petstore-production-CursorKeySecret`.
 */
export function replicatedSecretName(stage: StageName, definition: SecretDefinition): string {
  return `${stackName(stage)}-${definition.constructId}`;
}

/**
 * The secrets of `functionSecrets()` in `stack`, at its scope under their construct ids, each 64
 * random letters and digits that CloudFormation has Secrets Manager generate (in no template or
 * repository):
 * - one region: a secret as 1.0.0 made it (a name CloudFormation picks, AWS's default key);
 * - several regions, home region: named {@link replicatedSecretName}, encrypted with the stage
 *   key, and replicated (`replicaRegions`) into every other region with that region's stage key;
 * - several regions, another region: that region's replica, by its partial ARN (name without
 *   Secrets Manager's suffix) and with that region's key, so its functions read it in their region.
 */
export function createStageSecrets(
  stack: Stack,
  props: StageSecretsProps,
): ReadonlyMap<SecretDefinition, ISecret> {
  const { regions, stage } = props;
  const several = regions.length > 1;
  const home = !several || stack.region === regions[0];
  return new Map(
    functionSecrets().map((definition): [SecretDefinition, ISecret] => {
      const secretName = replicatedSecretName(stage, definition);
      if (!home) {
        return [
          definition,
          Secret.fromSecretAttributes(stack, definition.constructId, {
            secretPartialArn: stack.formatArn({
              service: 'secretsmanager',
              resource: 'secret',
              resourceName: secretName,
              arnFormat: ArnFormat.COLON_RESOURCE_NAME,
            }),
            encryptionKey: props.key,
          }),
        ];
      }
      const secret = new Secret(stack, definition.constructId, {
        description: `${stack.stackName}: ${definition.description}`,
        generateSecretString: { passwordLength: 64, excludePunctuation: true },
        removalPolicy: props.removalPolicy,
        ...(several && {
          secretName,
          encryptionKey: props.key,
          replicaRegions: regions.slice(1).map((region) => ({
            region,
            encryptionKey: Key.fromKeyArn(
              stack,
              `${definition.constructId}Key-${region}`,
              stageKeyAliasArn(stack, stage, region),
            ),
          })),
        }),
      });
      Validations.of(secret).acknowledge({
        id: 'AwsSolutions-SMG4',
        reason: definition.withoutRotation,
      });
      return [definition, secret];
    }),
  );
}
