/**
 * The stage's KMS key in a region other than its home: a stack of its own, deployed before the
 * home stack, whose global tables and secrets put their replicas there under this key.
 */
import {
  CfnDynamicReference,
  CfnDynamicReferenceService,
  type RemovalPolicy,
  Stack,
  type StackProps,
} from 'aws-cdk-lib';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { StringParameter } from 'aws-cdk-lib/aws-ssm';
import type { Construct } from 'constructs';
import { SERVICE_NAME } from '../../shared/logger.ts';
import { regionalStackName, type StageName } from '../stages.ts';
import { StageKey } from './stage-key.ts';

/** Name of the key stack of `stage` in `region`, e.g. `petstore-production-us-west-2-key`. */
export function regionKeyStackName(stage: StageName, region: string): string {
  return `${regionalStackName(stage, region)}-key`;
}

/** Name of the SSM parameter holding the ARN of `stage`'s key in its region: `/petstore/<stage>/key-arn`. */
export function stageKeyArnParameter(stage: StageName): string {
  return `/${SERVICE_NAME}/${stage}/key-arn`;
}

/**
 * The ARN of `stage`'s key in the region of the stack it is used in, as a dynamic reference
 * (`{{resolve:ssm:/petstore/<stage>/key-arn}}`) to the parameter its {@link RegionKeyStack} wrote:
 * a string in the template, which Control Tower's ct-cloudwatch-pr-3 accepts as a log group's
 * `KmsKeyId` where it refuses an `Fn::ImportValue`.
 */
export function stageKeyArnReference(stage: StageName): string {
  return new CfnDynamicReference(
    CfnDynamicReferenceService.SSM,
    stageKeyArnParameter(stage),
  ).toString();
}

/** Props of {@link RegionKeyStack}; `env.region` is the region. */
export interface RegionKeyStackProps extends Omit<StackProps, 'stackName'> {
  /** The stage. */
  readonly stage: StageName;
  /** The region (also `env.region`). */
  readonly region: string;
  /** What happens to the key when the stack goes: the stage's tables' policy. */
  readonly removalPolicy: RemovalPolicy;
}

/**
 * The {@link StageKey} of a stage in one of its other regions (alias `alias/petstore-<stage>`
 * there too), named {@link regionKeyStackName}. It must exist before the home stack adds that
 * region's table and secret replicas, which name it by its alias ARN, and it encrypts that
 * region's stack's log groups, which find it through the SSM parameter
 * {@link stageKeyArnParameter} (no cross-stack export). The home region's key stays in the home
 * stack, as in 1.0.0.
 */
export class RegionKeyStack extends Stack {
  /** The key. */
  readonly key: IKey;

  constructor(scope: Construct, id: string, props: RegionKeyStackProps) {
    super(scope, id, { ...props, stackName: regionKeyStackName(props.stage, props.region) });
    this.key = new StageKey(this, 'Key', props).key;
    new StringParameter(this, 'KeyArn', {
      parameterName: stageKeyArnParameter(props.stage),
      stringValue: this.key.keyArn,
      description: `ARN of the ${props.stage} stage's KMS key in ${props.region}`,
    });
  }
}
