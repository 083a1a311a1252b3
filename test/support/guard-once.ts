/**
 * vitest setup file of the `dynamodb` project: Control Tower's Guard rules (the cfn-guard binary
 * that `CfnGuardValidator` runs, infra/control-tower.ts) check each distinct template once per
 * test run, and only with the rule files that can apply to it. Every synthesis of the app checks
 * every stack's template, a stage's at several seconds of CPU, and the test files synthesize the
 * same stages in many configurations (the same staging stack beside another production domain,
 * GitHub repository or account). A template that passed a set of rules is recorded in the run's
 * directory (`cdkAssemblies`), and a later check of the same bytes against the same rules, in any
 * worker, is answered from that record; a template that breaks a rule is checked every time, so
 * that each report names its own files.
 *
 * Each Control Tower rule file queries resources by type (`Resources.*[ Type == %NAME ]`) and its
 * rules apply only `when` such resources exist, so Guard skips a file whose types a template
 * lacks, after walking the template once per rule: most of its CPU. Such a file is left out of the
 * template's run; a file that queries no type so is always run.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CfnGuardValidator } from '@cdklabs/cdk-validator-cfnguard';
import type { IPolicyValidationContextBeta1, PolicyValidationPluginReportBeta1 } from 'aws-cdk-lib';
import { inject } from 'vitest';

const passed = join(inject('cdkAssemblies'), 'guard-passed');
mkdirSync(passed, { recursive: true });

const validate = CfnGuardValidator.prototype.validate;

/** What a validator holds of its rules (private fields of `CfnGuardValidator`). */
interface ValidatorRules {
  readonly rulesPaths: readonly string[];
  readonly disabledRules: readonly string[];
}

CfnGuardValidator.prototype.validate = function validateOnce(
  context: IPolicyValidationContextBeta1,
) {
  // The validator's own fields (binary, rule paths, disabled rules) say which rules run.
  const rules = JSON.stringify(this);
  const recordOf = (template: string) =>
    join(passed, createHash('sha256').update(rules).update(readFileSync(template)).digest('hex'));
  const unchecked = context.templatePaths.filter((template) => !existsSync(recordOf(template)));
  const { rulesPaths, disabledRules } = this as unknown as ValidatorRules;
  const reports = unchecked.map((template) => {
    const report = checked(template, rulesPaths, disabledRules, context);
    if (report.success) writeFileSync(recordOf(template), '');
    return report;
  });
  return {
    success: reports.every((report) => report.success),
    violations: reports.flatMap((report) => report.violations),
  };
};

/** Guard's report on one template, run with the rule files of `rulesPaths` that can apply to it. */
function checked(
  template: string,
  rulesPaths: readonly string[],
  disabledRules: readonly string[],
  context: IPolicyValidationContextBeta1,
): PolicyValidationPluginReportBeta1 {
  const { Resources = {} } = JSON.parse(readFileSync(template, 'utf8')) as {
    Resources?: Record<string, { Type: string }>;
  };
  const present = new Set(Object.values(Resources).map((resource) => resource.Type));
  const applying = rulesPaths.flatMap(ruleFiles).filter((file) => {
    const types = queriedTypes(file);
    return types === undefined || types.some((type) => present.has(type));
  });
  if (applying.length === 0) return { success: true, violations: [] };
  const subset = new CfnGuardValidator({
    controlTowerRulesEnabled: false,
    rules: applying,
    disabledRules: [...disabledRules],
  });
  return validate.call(subset, { ...context, templatePaths: [template] });
}

/** The `.guard` files at or below `path`. */
function ruleFiles(path: string): string[] {
  if (!statSync(path).isDirectory()) return path.endsWith('.guard') ? [path] : [];
  return readdirSync(path).flatMap((entry) => ruleFiles(join(path, entry)));
}

/** Resource types by rule file, read once per worker. */
const typesByFile = new Map<string, readonly string[] | undefined>();

/**
 * The resource types that a rule file queries (`let NAME = "AWS::…"`, then
 * `Resources.*[ Type == %NAME ]`), or `undefined` when it queries none so, or one whose type it
 * does not name in a literal.
 */
function queriedTypes(file: string): readonly string[] | undefined {
  if (!typesByFile.has(file)) {
    const text = readFileSync(file, 'utf8');
    const literals = new Map(
      [...text.matchAll(/^let (\w+) = ["'](AWS::[\w:]+)["']/gm)].map(([, name, type]) => [
        name,
        type,
      ]),
    );
    const queried = [...text.matchAll(/Resources\.\*\[\s*Type\s*==\s*%(\w+)\s*\]/g)].map(
      ([, name]) => literals.get(name ?? ''),
    );
    const known = queried.filter((type) => type !== undefined);
    typesByFile.set(file, known.length > 0 && known.length === queried.length ? known : undefined);
  }
  return typesByFile.get(file);
}
