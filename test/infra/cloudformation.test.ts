/**
 * What CloudFormation itself checks before it creates a stack, on every synthesized template (the
 * account stack and both stages, with their portal edge stacks): no dependency cycle (walked here, independently of any linter)
 * and no cfn-lint finding beyond those `.cfnlintrc.yaml` ignores with a reason.
 */
import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { ACCOUNT_STACK_NAME, STAGES } from '../../infra/stages.ts';
import { cfnLintTemplates } from '../support/cfn-lint.ts';
import { petstore, synthesizeStages, templates } from '../support/petstore-app.ts';

synthesizeStages();

/** A template's resources, as CloudFormation reads them. */
type Resources = Record<string, Record<string, unknown>>;

/**
 * The resources `resource` waits for: every `Ref`, `Fn::GetAtt` and `Fn::Sub` reference to
 * another resource anywhere in it but its `Metadata`, and its `DependsOn`.
 */
function dependenciesOf(resource: Record<string, unknown>, resources: Resources): Set<string> {
  const found = new Set<string>();
  const add = (name: unknown) => {
    if (typeof name === 'string' && name in resources) found.add(name);
  };
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (const item of node) walk(item);
      return;
    }
    if (node === null || typeof node !== 'object') return;
    for (const [key, value] of Object.entries(node)) {
      if (key === 'Ref') add(value);
      else if (key === 'Fn::GetAtt') {
        add(Array.isArray(value) ? value[0] : String(value).split('.')[0]);
      } else if (key === 'Fn::Sub') {
        const [text, variables = {}] = Array.isArray(value) ? value : [value];
        for (const [, name = ''] of String(text).matchAll(/\$\{([^!}][^}.]*)[^}]*\}/g)) {
          if (!(name in variables)) add(name);
        }
      }
      walk(value);
    }
  };
  const { Metadata: _metadata, DependsOn: dependsOn, ...rest } = resource;
  walk(rest);
  for (const name of [dependsOn ?? []].flat()) add(name);
  return found;
}

/**
 * A dependency cycle among a template's resources, as the list of logical ids around it (the
 * first repeated at the end), or undefined when there is none.
 */
function dependencyCycle(template: Template): string[] | undefined {
  const resources: Resources = template.toJSON().Resources ?? {};
  const edges = new Map(
    Object.entries(resources).map(([id, resource]) => [id, dependenciesOf(resource, resources)]),
  );
  const done = new Set<string>();
  const path: string[] = [];
  const visit = (id: string): string[] | undefined => {
    const at = path.indexOf(id);
    if (at >= 0) return [...path.slice(at), id];
    if (done.has(id)) return undefined;
    path.push(id);
    for (const next of edges.get(id) ?? []) {
      const cycle = visit(next);
      if (cycle) return cycle;
    }
    path.pop();
    done.add(id);
    return undefined;
  };
  for (const id of edges.keys()) {
    const cycle = visit(id);
    if (cycle) return cycle;
  }
  return undefined;
}

describe('dependency cycles', () => {
  it.each(STAGES)('the %s stage has none, so CloudFormation can create it', (stage) => {
    expect(dependencyCycle(templates[stage])).toBeUndefined();
  });

  it(`the account stack ${ACCOUNT_STACK_NAME} and each portal edge stack have none`, () => {
    expect(dependencyCycle(petstore.accountStacks.staging.template)).toBeUndefined();
    for (const stage of STAGES) {
      expect(dependencyCycle(petstore.portalEdgeStacks[stage].template)).toBeUndefined();
    }
  });

  it('are found where a Ref, GetAtt, Sub, DependsOn or UpdatePolicy closes a loop', () => {
    // GIVEN templates whose resources wait for each other in a ring, through each kind of link
    // (`Template.fromJSON`'s own check reads no UpdatePolicy, so it is off here)
    const template = (resources: Resources) =>
      Template.fromJSON({ Resources: resources }, { skipCyclicalDependenciesCheck: true });
    const ring = (link: (to: string) => Record<string, unknown>) =>
      template({
        A: { Type: 'AWS::SNS::Topic', Properties: { DisplayName: link('B') } },
        B: { Type: 'AWS::SNS::Topic', Properties: { DisplayName: link('A') } },
        C: { Type: 'AWS::SNS::Topic', Properties: { DisplayName: { Ref: 'AWS::Region' } } },
      });

    // THEN each ring is reported, and resources that only use pseudo parameters are not
    expect(dependencyCycle(ring((to) => ({ Ref: to })))).toEqual(['A', 'B', 'A']);
    expect(dependencyCycle(ring((to) => ({ 'Fn::GetAtt': [to, 'TopicName'] })))).toHaveLength(3);
    expect(dependencyCycle(ring((to) => ({ 'Fn::GetAtt': `${to}.TopicName` })))).toHaveLength(3);
    expect(dependencyCycle(ring((to) => ({ 'Fn::Sub': `x-\${${to}.TopicName}` })))).toHaveLength(3);
    expect(
      dependencyCycle(ring((to) => ({ 'Fn::Sub': [`\${${to}}`, { [to]: 'literal' }] }))),
    ).toBeUndefined();
    expect(
      dependencyCycle(
        template({
          A: { Type: 'AWS::SNS::Topic', DependsOn: ['B'] },
          B: { Type: 'AWS::SNS::Topic', DependsOn: 'A' },
        }),
      ),
    ).toHaveLength(3);
    expect(
      dependencyCycle(
        template({
          A: {
            Type: 'AWS::Lambda::Alias',
            UpdatePolicy: { CodeDeployLambdaAliasUpdate: { DeploymentGroupName: { Ref: 'B' } } },
          },
          B: { Type: 'AWS::CodeDeploy::DeploymentGroup', Properties: { X: { Ref: 'A' } } },
        }),
      ),
    ).toHaveLength(3);
  });
});

describe('cfn-lint', () => {
  it('finds no error and no warning in any synthesized template', () => {
    // GIVEN the templates of the whole app: the account stack and both stages, each with its
    // portal edge stack
    // WHEN cfn-lint reads them with the repository's settings
    const result = cfnLintTemplates(petstore.directory);
    expect(result.files).toHaveLength(1 + 2 * STAGES.length);

    // THEN it reports nothing, and exits 0
    expect(result.findings, result.stderr).toEqual([]);
    expect(result.status).toBe(0);
  }, 120_000);
});
