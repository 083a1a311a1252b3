/**
 * cfn-lint over synthesized templates with the repository's settings (`.cfnlintrc.yaml`, whose
 * every ignored check says why): what CloudFormation itself would refuse, checked here.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { REPOSITORY_ROOT } from '../../infra/repository.ts';

/** The repository's cfn-lint settings: the checks it ignores, each with its reason. */
const CFN_LINT_CONFIG = join(REPOSITORY_ROOT, '.cfnlintrc.yaml');

/**
 * Runs cfn-lint on every template (`*.template.json`) under `directory`, a cloud assembly.
 *
 * @returns The templates' paths, cfn-lint's JSON findings (empty when clean), its exit status
 *   and stderr.
 * @throws Error saying how to install cfn-lint when it cannot run.
 */
export function cfnLintTemplates(directory: string): {
  files: string[];
  findings: unknown;
  status: number | null;
  stderr: string;
} {
  const files = readdirSync(directory, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.template.json'))
    .map((file) => join(directory, file));
  const result = spawnSync(
    'cfn-lint',
    ['--config-file', CFN_LINT_CONFIG, '--format', 'json', '--', ...files],
    { encoding: 'utf8' },
  );
  if (result.error) {
    throw new Error(
      `cfn-lint could not run (${result.error.message}): pip install cfn-lint==1.51.0 (README, "Set-up")`,
    );
  }
  return {
    files,
    findings: JSON.parse(result.stdout || 'null'),
    status: result.status,
    stderr: result.stderr,
  };
}
