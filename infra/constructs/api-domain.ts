/**
 * A stage's custom domain: clients call `https://<domain>/v1/pets` instead of the `execute-api`
 * address (docs/operations.md, "Custom domain").
 */
import { DomainName, EndpointType, type RestApi, SecurityPolicy } from 'aws-cdk-lib/aws-apigateway';
import { Certificate } from 'aws-cdk-lib/aws-certificatemanager';
import { ARecord, HostedZone, RecordTarget } from 'aws-cdk-lib/aws-route53';
import { ApiGatewayDomain } from 'aws-cdk-lib/aws-route53-targets';
import { Construct } from 'constructs';
import { API_STAGE_NAME } from '../../shared/paths.ts';

/** An operator's custom domain for a stage (the `petstore:<stage>:domainName` context keys). */
export interface ApiDomainOptions {
  /** The API's host name, e.g. `api.example.com`. */
  readonly domainName: string;
  /** ARN of an ACM certificate for `domainName`, in the stage's account and region. */
  readonly certificateArn: string;
  /**
   * The Route 53 public hosted zone that holds `domainName`: an alias A record is then made in it.
   *
   * @default - no record: the operator points the name at the domain's regional target
   */
  readonly hostedZone?: { readonly hostedZoneId: string; readonly zoneName: string };
  /**
   * Keep the `execute-api` endpoint besides the domain.
   *
   * @default false - the domain is the stage's one address
   */
  readonly executeApiEndpoint?: boolean;
}

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
 */
export class ApiDomain extends Construct {
  /** The API's base URL on the domain, e.g. `https://api.example.com/v1/`. */
  readonly url: string;

  /** The custom domain. */
  readonly domain: DomainName;

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
      new ARecord(this, 'AliasRecord', {
        zone: HostedZone.fromHostedZoneAttributes(this, 'Zone', props.hostedZone),
        recordName: props.domainName,
        target: RecordTarget.fromAlias(new ApiGatewayDomain(this.domain)),
      });
    }
    this.url = `https://${props.domainName}/${API_STAGE_NAME}/`;
  }
}
