/**
 * One address for a stage in several regions (issue 41, item 4): each region's stack serves the
 * same domain with its own certificate (`petstore:<stage>:certificateArn:<region>` outside the
 * home region), its alias record a LATENCY record with a health check of its own, built on an
 * alarm of the region's 5xx share that Route 53 can read; the operators' override
 * (`petstore:<stage>:evacuate`); the outputs a region is reached and overridden by; cfn-lint on
 * the app's templates, with cdk-nag and Control Tower: production in two regions
 * (`petstore:production:regions=us-east-1,us-west-2`), staging in one.
 */
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import {
  REGION_UNHEALTHY_MINUTES,
  REGION_UNHEALTHY_SHARE,
} from '../../infra/constructs/api-domain.ts';
import { domainOptions } from '../../infra/deployment-context.ts';
import type { PetstoreStack } from '../../infra/petstore-stack.ts';
import { contextKey, STACK_OUTPUTS } from '../../infra/stages.ts';
import { cfnLintTemplates } from '../support/cfn-lint.ts';
import { deploymentApp, environmentContext } from '../support/deployment-app.ts';

// Two whole stacks, unbundled: seconds each on a busy machine, the CDK's modules loaded cold.
vi.setConfig({ testTimeout: 120_000 });

const ACCOUNT = '222222222222';
const REGIONS = ['us-east-1', 'us-west-2'] as const;
type Region = (typeof REGIONS)[number];
const ZONE_ID = 'Z0123456789ABCDEFGHIJ';

/** An ACM certificate ARN of `region`, distinct per region. */
const certificate = (region: string) =>
  `arn:aws:acm:${region}:${ACCOUNT}:certificate/0a1b2c3d-0000-4000-8000-00000000000${REGIONS.indexOf(region as Region) + 1}`;

const key = (option: Parameters<typeof contextKey>[1]) => contextKey('production', option);

/** Production's domain in two regions, home us-east-1, with its hosted zone. */
const CONTEXT: Record<string, string> = {
  [key('regions')]: REGIONS.join(','),
  [key('domainName')]: 'api.example.com',
  [key('certificateArn')]: certificate('us-east-1'),
  [`${key('certificateArn')}:us-west-2`]: certificate('us-west-2'),
  [key('hostedZoneId')]: ZONE_ID,
  [key('hostedZoneName')]: 'example.com',
};

/** `domainOptions` for production's stack in `region`. */
function optionsIn(context: Record<string, string>, region: string) {
  return domainOptions(
    new App({ context }),
    'production',
    { account: ACCOUNT, region },
    REGIONS[0],
  );
}

/**
 * The app with production in two regions (home `us-east-1`) and staging in one, each in its
 * account, under the app's cdk-nag and Control Tower checks, synthesized (functions unbundled).
 *
 * @returns Production's template in each region, and the cloud assembly's directory.
 * @throws The synthesis' Error on a cdk-nag or Control Tower finding, or a refused setting.
 */
function build(context: Record<string, string>) {
  const { app, stacks, regionalStacks } = deploymentApp({ ...environmentContext(), ...context });
  const { directory } = app.synth();
  const [west] = regionalStacks.production;
  expect(west?.region).toBe('us-west-2');
  const templates: Record<Region, Template> = {
    'us-east-1': Template.fromStack(stacks.production),
    'us-west-2': Template.fromStack(west as PetstoreStack),
  };
  return { outdir: directory, templates };
}

/** The one resource of `type` whose logical id starts with `prefix`, with its logical id. */
function only(template: Template, type: string, prefix = 'Api') {
  const entries = Object.entries(template.findResources(type)).filter(([id]) =>
    id.startsWith(prefix),
  );
  expect(entries, `${type} ${prefix}*`).toHaveLength(1);
  const [[id, resource]] = entries as [[string, { Properties: Record<string, unknown> }]];
  return { id, properties: resource.Properties };
}

/** The value of output `name`, or undefined when the template has none. */
function output(template: Template, name: string): unknown {
  return template.findOutputs(name)[name]?.Value;
}

let built: ReturnType<typeof build>;

// Guard over four stacks, a minute and more while other files run beside this one.
beforeAll(() => {
  built = build(CONTEXT);
}, 300_000);

describe('a stage in two regions behind one domain', () => {
  it.each(REGIONS)('serves the same domain in %s with that region’s own certificate', (region) => {
    expect(only(built.templates[region], 'AWS::ApiGateway::DomainName').properties).toEqual({
      DomainName: 'api.example.com',
      EndpointConfiguration: { Types: ['REGIONAL'] },
      RegionalCertificateArn: certificate(region),
      SecurityPolicy: 'TLS_1_2',
    });
  });

  it.each(REGIONS)(
    'makes in %s a latency alias record behind the region’s health check',
    (region) => {
      const template = built.templates[region];
      const domain = only(template, 'AWS::ApiGateway::DomainName').id;
      const healthCheck = only(template, 'AWS::Route53::HealthCheck', 'ApiDomainHealthCheck');

      expect(only(template, 'AWS::Route53::RecordSet').properties).toEqual({
        Name: 'api.example.com.',
        Type: 'A',
        HostedZoneId: ZONE_ID,
        Region: region,
        SetIdentifier: region,
        HealthCheckId: { Ref: healthCheck.id },
        AliasTarget: {
          DNSName: { 'Fn::GetAtt': [domain, 'RegionalDomainName'] },
          HostedZoneId: { 'Fn::GetAtt': [domain, 'RegionalHostedZoneId'] },
          EvaluateTargetHealth: true,
        },
      });
    },
  );

  it.each(REGIONS)(
    'in %s, fails the health check on an alarm of the region’s 5xx share that Route 53 can read',
    (region) => {
      // GIVEN the region's health check (on the record), its child and the child's alarm
      const template = built.templates[region];
      const parent = only(template, 'AWS::Route53::HealthCheck', 'ApiDomainHealthCheck');
      const child = only(template, 'AWS::Route53::HealthCheck', 'ApiDomainAlarmHealthCheck');
      const alarm = only(template, 'AWS::CloudWatch::Alarm', 'ApiDomainHealthAlarm');
      const stage = only(template, 'AWS::ApiGateway::Stage');

      // THEN the parent is healthy while its one child is
      expect(parent.properties.HealthCheckConfig).toEqual({
        Type: 'CALCULATED',
        ChildHealthChecks: [{ Ref: child.id }],
        HealthThreshold: 1,
        Inverted: false,
      });
      // AND the child follows the alarm in the stack's own region, keeping its status without data
      expect(child.properties.HealthCheckConfig).toEqual({
        Type: 'CLOUDWATCH_METRIC',
        AlarmIdentifier: { Name: { Ref: alarm.id }, Region: region },
        InsufficientDataHealthStatus: 'LastKnownStatus',
        Inverted: false,
      });
      // AND the alarm is what Route 53 reads: one standard-resolution metric, a plain statistic (no
      // metric math, no composite): the Average of 5XXError, the share of requests answered 5xx
      expect(alarm.properties).toMatchObject({
        Namespace: 'AWS/ApiGateway',
        MetricName: '5XXError',
        Dimensions: expect.arrayContaining([{ Name: 'Stage', Value: { Ref: stage.id } }]),
        Statistic: 'Average',
        Period: 60,
        EvaluationPeriods: REGION_UNHEALTHY_MINUTES,
        Threshold: REGION_UNHEALTHY_SHARE,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        TreatMissingData: 'ignore',
      });
      expect(alarm.properties).not.toHaveProperty('Metrics');
      expect(alarm.properties).not.toHaveProperty('ExtendedStatistic');
    },
  );

  it.each(REGIONS)(
    'names in %s the global address, the region’s own one and its health check',
    (region) => {
      const template = built.templates[region];
      const domain = only(template, 'AWS::ApiGateway::DomainName').id;
      const healthCheck = only(template, 'AWS::Route53::HealthCheck', 'ApiDomainHealthCheck').id;

      expect(output(template, STACK_OUTPUTS.apiBaseUrl)).toBe('https://api.example.com/v1/');
      // the execute-api endpoint is disabled: the region is reached on the domain's regional name
      expect(output(template, STACK_OUTPUTS.regionalApiBaseUrl)).toBe(
        'https://api.example.com/v1/',
      );
      expect(output(template, STACK_OUTPUTS.regionalDomainName)).toEqual({
        'Fn::GetAtt': [domain, 'RegionalDomainName'],
      });
      expect(output(template, STACK_OUTPUTS.healthCheckId)).toEqual({ Ref: healthCheck });
    },
  );

  it('passes cfn-lint (the health checks’ alarm regions included), cdk-nag and the Control Tower rules', () => {
    // cdk-nag and Control Tower: the synthesis in build() fails on a finding
    const result = cfnLintTemplates(built.outdir);

    // the app's templates: both of production's regions among them
    expect(
      result.files.filter((file) => /productionPetstore(uswest2)?[0-9A-F]{8}\./.test(file)),
    ).toHaveLength(2);
    expect(result.findings, result.stderr).toEqual([]);
    expect(result.status).toBe(0);
  });
});

describe('the manual override', () => {
  it('takes the region petstore:<stage>:evacuate names out of DNS, and no other', () => {
    // GIVEN us-west-2 evacuated
    const context = { ...CONTEXT, [key('evacuate')]: 'us-west-2' };

    // THEN its health check needs more healthy children than it has; us-east-1's is as before
    const threshold = (region: Region) =>
      (optionsIn(context, region)?.latency ?? {}) as { evacuated?: boolean };
    expect(threshold('us-west-2').evacuated).toBe(true);
    expect(threshold('us-east-1').evacuated).toBe(false);
    const { templates } = build(context);
    const config = (region: Region) =>
      only(templates[region], 'AWS::Route53::HealthCheck', 'ApiDomainHealthCheck').properties
        .HealthCheckConfig as { HealthThreshold: number; ChildHealthChecks: unknown[] };
    expect(config('us-west-2').HealthThreshold).toBe(
      config('us-west-2').ChildHealthChecks.length + 1,
    );
    expect(config('us-east-1').HealthThreshold).toBe(config('us-east-1').ChildHealthChecks.length);
    // the record and the alarm stay: the region comes back by the next deploy without the key
    for (const region of REGIONS) {
      templates[region].resourceCountIs('AWS::Route53::RecordSet', 1);
    }
  });
});

describe('one region, no zone, or no domain', () => {
  it('routes a stage of one region without latency records (its simple record: custom-domain.test.ts)', () => {
    const { [key('regions')]: _, ...oneRegion } = CONTEXT;

    expect(optionsIn(oneRegion, 'us-east-1')?.latency).toBeUndefined();
  });

  it('makes no latency record without a hosted zone: the operator points the name', () => {
    const { [key('hostedZoneId')]: _, [key('hostedZoneName')]: __, ...noZone } = CONTEXT;

    expect(optionsIn(noZone, 'us-west-2')).toMatchObject({
      hostedZone: undefined,
      latency: undefined,
    });
  });

  it("names each region's execute-api address without a domain, with no record and no health check", () => {
    // GIVEN production in two regions without a custom domain
    const { templates } = build({ [key('regions')]: REGIONS.join(',') });

    for (const region of REGIONS) {
      const template = templates[region];
      const url = output(template, STACK_OUTPUTS.apiBaseUrl);
      // THEN each region's own execute-api URL is both its address and the one clients call
      expect(JSON.stringify(url), region).toContain('.execute-api.');
      expect(output(template, STACK_OUTPUTS.regionalApiBaseUrl), region).toEqual(url);
      expect(output(template, STACK_OUTPUTS.healthCheckId), region).toBeUndefined();
      template.resourceCountIs('AWS::Route53::RecordSet', 0);
      template.resourceCountIs('AWS::Route53::HealthCheck', 0);
    }
  });
});

describe('regional domain settings refused', () => {
  it.each([
    [
      'us-west-2',
      { ...CONTEXT, [`${key('certificateArn')}:us-west-2`]: undefined },
      'petstore:production:domainName and petstore:production:certificateArn:us-west-2 go together: set both or neither',
    ],
    [
      'us-west-2',
      { ...CONTEXT, [`${key('certificateArn')}:us-west-2`]: certificate('us-east-1') },
      "petstore:production:certificateArn:us-west-2 is in region us-east-1, but a REGIONAL custom domain needs a certificate in the stack's region, us-west-2",
    ],
    [
      'us-west-2',
      {
        ...CONTEXT,
        [`${key('certificateArn')}:us-west-2`]: certificate('us-west-2').replace(
          ACCOUNT,
          '111111111111',
        ),
      },
      "petstore:production:certificateArn:us-west-2 is in account 111111111111, but a REGIONAL custom domain needs a certificate in the stack's account, 222222222222",
    ],
    [
      'us-west-2',
      {
        ...CONTEXT,
        [`${key('certificateArn')}:us-west-2`]: 'arn:aws:acm:us-west-2:222222222222:key/x',
      },
      'petstore:production:certificateArn:us-west-2 must be an ACM certificate ARN',
    ],
    [
      'us-east-1',
      { ...CONTEXT, [key('certificateArn')]: certificate('us-west-2') },
      "petstore:production:certificateArn is in region us-west-2, but a REGIONAL custom domain needs a certificate in the stack's region, us-east-1",
    ],
    [
      'us-east-1',
      { ...CONTEXT, [key('evacuate')]: 'eu-west-1' },
      "petstore:production:evacuate must name regions of petstore:production:regions (us-east-1,us-west-2); got 'eu-west-1'",
    ],
    [
      'us-east-1',
      { ...CONTEXT, [key('evacuate')]: 'us-west-2,us-east-1' },
      'petstore:production:evacuate names every region of the stage; Route 53 would then answer with all of them, as if healthy',
    ],
    [
      'us-east-1',
      { ...CONTEXT, [key('regions')]: 'us-east-1', [key('evacuate')]: 'us-east-1' },
      'petstore:production:evacuate applies only with several petstore:production:regions and petstore:production:hostedZoneId',
    ],
    [
      'us-east-1',
      { [key('evacuate')]: 'us-west-2' },
      'petstore:production:evacuate applies only with petstore:production:domainName',
    ],
  ])('in %s, refuses %o', (region, context, message) => {
    const defined = Object.fromEntries(
      Object.entries(context).filter(([, value]) => value !== undefined),
    ) as Record<string, string>;

    expect(() => optionsIn(defined, region)).toThrow(message);
  });
});
