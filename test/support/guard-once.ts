/**
 * vitest setup file of the `dynamodb` project: Control Tower's Guard rules (the cfn-guard binary
 * that `CfnGuardValidator` runs, infra/control-tower.ts) check each distinct template once per
 * test run. Every synthesis of the app checks every stack's template, a stage's at several
 * seconds of CPU, and the test files synthesize the same stages in many configurations (the same
 * staging stack beside another production domain, GitHub repository or account). A template that
 * passed a set of rules is recorded in the run's directory (`cdkAssemblies`), and a later check of
 * the same bytes against the same rules, in any worker, is answered from that record; a template
 * that breaks a rule is checked every time, so that each report names its own files.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CfnGuardValidator } from '@cdklabs/cdk-validator-cfnguard';
import type { IPolicyValidationContext } from 'aws-cdk-lib';
import { inject } from 'vitest';

const passed = join(inject('cdkAssemblies'), 'guard-passed');
mkdirSync(passed, { recursive: true });

const validate = CfnGuardValidator.prototype.validate;

CfnGuardValidator.prototype.validate = function validateOnce(context: IPolicyValidationContext) {
  // The validator's own fields (binary, rule paths, disabled rules) say which rules run.
  const rules = JSON.stringify(this);
  const recordOf = (template: string) =>
    join(passed, createHash('sha256').update(rules).update(readFileSync(template)).digest('hex'));
  const unchecked = context.templatePaths.filter((template) => !existsSync(recordOf(template)));
  if (unchecked.length === 0) return { success: true, violations: [] };
  const report = validate.call(this, { ...context, templatePaths: unchecked });
  if (report.success) for (const template of unchecked) writeFileSync(recordOf(template), '');
  return report;
};
