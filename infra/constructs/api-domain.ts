/**
 * A stage's custom domain: clients call `https://<domain>/v1/pets` instead of the `execute-api`
 * address (docs/operations.md, "Custom domain"); with several regions, one address for all of them
 * (docs/operations.md, "Failover").
 */
import { Duration } from 'aws-cdk-lib';
import { DomainName, EndpointType, type RestApi, SecurityPolicy } from 'aws-cdk-lib/aws-apigateway';
import { Certificate } from 'aws-cdk-lib/aws-certificatemanager';
import { type Alarm, ComparisonOperator, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import {
  ARecord,
  HealthCheck,
  HealthCheckType,
  HostedZone,
  InsufficientDataHealthStatusEnum,
  RecordTarget,
} from 'aws-cdk-lib/aws-route53';
import { ApiGatewayDomain } from 'aws-cdk-lib/aws-route53-targets';
import { Construct } from 'constructs';
import { API_STAGE_NAME } from '../../shared/paths.ts';

/** An operator's custom domain for a stage (the `petstore:<stage>:domainName` context keys). */
export interface ApiDomainOptions {
  /** The API's host name, e.g. `api.example.com`. */
  readonly domainName: string;
  /** ARN of an ACM certificate for `domainName`, in the stack's account and region. */
  readonly certificateArn: string;
  /**
   * The Route 53 public hosted zone that holds `domainName`: an alias A record is then made in it.
   *
   * @default - no record: the operator points the name at the domain's regional target
   */
  readonly hostedZone?: { readonly hostedZoneId: string; readonly zoneName: string };
  /**
   * The stage serves the domain from several regions: this stack's record is then one of their
   * latency records, behind a health check (see {@link ApiDomain}). Only with `hostedZone`.
   *
   * @default - one region: a simple alias record, as before regions
   */
  readonly latency?: LatencyRouting;
  /**
   * Keep the `execute-api` endpoint besides the domain.
   *
   * @default false - the domain is the stage's one address
   */
  readonly executeApiEndpoint?: boolean;
}

/** This region's member of the domain's latency records. */
export interface LatencyRouting {
  /** The stack's region: the record's `Region` and `SetIdentifier`, and where its alarm is. */
  readonly region: string;
  /**
   * Take the region out of DNS (the operators' override, `petstore:<stage>:evacuate`): its health
   * check then needs more healthy children than it has, so it is unhealthy whatever they say.
   */
  readonly evacuated: boolean;
}

/**
 * The share of a region's requests answered 5xx (API Gateway's `5XXError`, whose Average is that
 * share) at or above which, for {@link REGION_UNHEALTHY_MINUTES} 1-minute periods in a row, the
 * region is taken out of DNS. Above production's 10% canary failing whole, which its own alarms
 * roll back within a minute; a region whose store is down answers nearly all requests 503.
 */
export const REGION_UNHEALTHY_SHARE = 0.25;

/** Consecutive 1-minute periods at or above {@link REGION_UNHEALTHY_SHARE} before the alarm. */
export const REGION_UNHEALTHY_MINUTES = 3;

/** Props of {@link ApiDomain}. */
export interface ApiDomainProps extends ApiDomainOptions {
  /** The RestApi whose deployment stage (`v1`) the domain serves. */
  readonly restApi: RestApi;
}

/**
 * A REGIONAL API Gateway custom domain (TLS 1.2 security policy) whose base path `v1` maps to the
 * RestApi's stage `v1`, and, given a hosted zone, the alias A record naming it.
 *
 * The base path is the stage's own name, so that the paths the functions write (`Location:
 * /v1/pets/7`, `Link: </v1/pets>`, from shared/paths.ts) name the same resource on the domain
 * as on the `execute-api` address.
 *
 * With `latency`, as API Gateway's documented regional failover: each region's stack serves the
 * same domain name with its own certificate, and its alias record is a LATENCY record
 * (`SetIdentifier` and `Region` = the region) that evaluates its target's health (API Gateway's
 * own, no more) and has a health check of its own. That check is `CALCULATED` (threshold 1) on one
 * child, a `CLOUDWATCH_METRIC` check of {@link healthAlarm}: Route 53 reads only single-metric
 * alarms with a plain statistic (its `CloudWatchAlarmConfiguration` holds one metric: no composite,
 * no metric math). The parent is what the operators' override moves: a `HealthThreshold` above
 * its children's count is unhealthy whatever they say (an inverted check would instead turn a
 * failing region healthy). The alarm ignores periods without requests, so a region out of DNS
 * stays out until requests (cached DNS, its regional address, a smoke test) show it healthy.
 * Health checks are global resources; each region's stack makes its own.
 */
export class ApiDomain extends Construct {
  /** The API's base URL on the domain, e.g. `https://api.example.com/v1/`. */
  readonly url: string;

  /** The custom domain. */
  readonly domain: DomainName;

  /** The region's health check on its latency record, given `latency` and `hostedZone`. */
  readonly healthCheck?: HealthCheck;

  /**
   * Fires when {@link REGION_UNHEALTHY_SHARE} or more of the region's requests answered 5xx for
   * {@link REGION_UNHEALTHY_MINUTES} minutes in a row: the region then leaves DNS.
   */
  readonly healthAlarm?: Alarm;

  constructor(scope: Construct, id: string, props: ApiDomainProps) {
    super(scope, id);
    this.domain = new DomainName(this, 'Default', {
      domainName: props.domainName,
      certificate: Certificate.fromCertificateArn(this, 'Certificate', props.certificateArn),
      endpointType: EndpointType.REGIONAL,
      securityPolicy: SecurityPolicy.TLS_1_2,
    });
    this.domain.addBasePathMapping(props.restApi, {
      basePath: API_STAGE_NAME,
      stage: props.restApi.deploymentStage,
    });
    if (props.hostedZone) {
      const { latency } = props;
      if (latency) {
        this.healthAlarm = props.restApi.deploymentStage
          .metricServerError({ statistic: 'Average', period: Duration.minutes(1) })
          .createAlarm(this, 'HealthAlarm', {
            alarmDescription: `${latency.region}: ${REGION_UNHEALTHY_SHARE * 100}% or more of the requests answered 5xx for ${REGION_UNHEALTHY_MINUTES} minutes; Route 53 takes the region out of ${props.domainName}`,
            threshold: REGION_UNHEALTHY_SHARE,
            evaluationPeriods: REGION_UNHEALTHY_MINUTES,
            comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
            treatMissingData: TreatMissingData.IGNORE,
          });
        const alarmCheck = new HealthCheck(this, 'AlarmHealthCheck', {
          type: HealthCheckType.CLOUDWATCH_METRIC,
          alarmIdentifier: { region: latency.region, name: this.healthAlarm.alarmName },
          insufficientDataHealthStatus: InsufficientDataHealthStatusEnum.LAST_KNOWN_STATUS,
        });
        const children = [alarmCheck];
        this.healthCheck = new HealthCheck(this, 'HealthCheck', {
          type: HealthCheckType.CALCULATED,
          childHealthChecks: children,
          healthThreshold: children.length + (latency.evacuated ? 1 : 0),
        });
      }
      const target = new ApiGatewayDomain(this.domain);
      new ARecord(this, 'AliasRecord', {
        zone: HostedZone.fromHostedZoneAttributes(this, 'Zone', props.hostedZone),
        recordName: props.domainName,
        // A latency record also follows API Gateway's own health in the region, which a region
        // without requests (API Gateway down there) could not bring to the alarm.
        target: RecordTarget.fromAlias(
          latency
            ? { bind: (...args) => ({ ...target.bind(...args), evaluateTargetHealth: true }) }
            : target,
        ),
        ...(latency && {
          region: latency.region,
          setIdentifier: latency.region,
          healthCheck: this.healthCheck,
        }),
      });
    }
    this.url = `https://${props.domainName}/${API_STAGE_NAME}/`;
  }
}
