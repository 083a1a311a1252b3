/**
 * The repository's GitHub Actions files as GitHub reads them: `.github/workflows/*.yml` through
 * GitHub's own parser (`@actions/workflow-parser`, which the Actions service and VS Code's
 * extension run), parsed with `yaml` for the tests' own questions, and every `run:` script.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { registerHooks } from 'node:module';
import { join } from 'node:path';
import { parse } from 'yaml';
import { REPOSITORY_ROOT } from '../../infra/repository.ts';

// The parser imports its JSON schemas without `with { type: 'json' }`, which Node.js 24 refuses.
registerHooks({
  load: (url, context, nextLoad) =>
    nextLoad(
      url,
      url.endsWith('.json') ? { ...context, importAttributes: { type: 'json' } } : context,
    ),
});
const { convertWorkflowTemplate, NoOperationTraceWriter, parseWorkflow } = await import(
  '@actions/workflow-parser'
);
const { convertActionTemplate, parseAction } = await import(
  '@actions/workflow-parser/actions/index'
);

/** The workflows' folder, as GitHub finds it. */
export const WORKFLOWS_DIR = join(REPOSITORY_ROOT, '.github/workflows');

/** The repository's own (composite) actions, which workflows use as `./.github/actions/<name>`. */
export const ACTIONS_DIR = join(REPOSITORY_ROOT, '.github/actions');

/** Every workflow and action file, relative to the repository's root. */
export function actionsFiles(): { workflows: string[]; actions: string[] } {
  return {
    workflows: readdirSync(WORKFLOWS_DIR)
      .filter((name) => /\.ya?ml$/.test(name))
      .map((name) => `.github/workflows/${name}`),
    actions: readdirSync(ACTIONS_DIR).map((name) => `.github/actions/${name}/action.yml`),
  };
}

/** The text of a repository file. */
export function readText(path: string): string {
  return readFileSync(join(REPOSITORY_ROOT, path), 'utf8');
}

/**
 * What GitHub's parser says is wrong with a workflow, `content` defaulting to the file's: schema
 * errors, then the conversion's (expressions, `needs` naming unknown jobs, cycles).
 *
 * @returns One message per error, `<name> (Line: L, Col: C): <message>`; empty when accepted.
 */
export async function workflowErrors(name: string, content = readText(name)): Promise<string[]> {
  const { context, value } = parseWorkflow({ name, content }, new NoOperationTraceWriter());
  if (value) await convertWorkflowTemplate(context, value);
  return context.errors.getErrors().map((error) => error.message);
}

/** What GitHub's parser says is wrong with an action's `action.yml`; empty when accepted. */
export function actionErrors(name: string, content = readText(name)): string[] {
  const { context, value } = parseAction({ name, content }, new NoOperationTraceWriter());
  if (value) convertActionTemplate(context, value);
  return context.errors.getErrors().map((error) => error.message);
}

/** A step of a job or of a composite action, as written. */
export interface Step {
  readonly id?: string;
  readonly name?: string;
  readonly uses?: string;
  readonly run?: string;
  readonly if?: string;
  readonly with?: Record<string, string>;
  readonly env?: Record<string, string>;
}

/** A job, as written. */
export interface Job {
  readonly name?: string;
  readonly needs?: string | string[];
  readonly if?: string;
  readonly environment?: string | { name: string };
  readonly concurrency?: string | { group: string; 'cancel-in-progress'?: boolean | string };
  readonly permissions?: Record<string, string>;
  readonly 'timeout-minutes'?: number;
  readonly steps: Step[];
}

/** A workflow file, as written. */
export interface Workflow {
  readonly on: Record<string, unknown>;
  readonly permissions?: Record<string, string>;
  readonly jobs: Record<string, Job>;
}

/** A workflow, parsed with `yaml` (after GitHub's parser accepted it: {@link workflowErrors}). */
export function readWorkflow(path: string): Workflow {
  return parse(readText(path)) as Workflow;
}

/** `${{ text }}`: a GitHub Actions expression as a workflow writes it. */
export function expression(text: string): string {
  return `\${{ ${text} }}`;
}

/**
 * A `run:` script as bash would see it, for shellcheck: GitHub substitutes each `${{ … }}` into the
 * text before bash reads it, so each becomes the shell variable `$GITHUB_EXPRESSION`, and a
 * quoting mistake around an expression stays visible.
 */
export function withPlaceholders(script: string): string {
  return script.replace(/\$\{\{[^}]*\}\}/g, '$GITHUB_EXPRESSION');
}

/** A `run:` script and where it is. */
export interface RunScript {
  /** `<file> <job> <step name or number>`. */
  readonly where: string;
  /** The script with every `${{ … }}` expression replaced by `$GITHUB_EXPRESSION`. */
  readonly script: string;
}

/** Every `run:` script of the workflows and actions, through {@link withPlaceholders}. */
export function runScripts(): RunScript[] {
  const { workflows, actions } = actionsFiles();
  const scripts = (path: string, job: string, steps: Step[]) =>
    steps.flatMap((step, index) =>
      step.run === undefined
        ? []
        : [
            {
              where: `${path} ${job} ${step.name ?? step.id ?? `step ${index + 1}`}`,
              script: withPlaceholders(step.run),
            },
          ],
    );
  return [
    ...workflows.flatMap((path) =>
      Object.entries(readWorkflow(path).jobs).flatMap(([id, job]) => scripts(path, id, job.steps)),
    ),
    ...actions.flatMap((path) => {
      const { runs } = parse(readText(path)) as { runs: { steps?: Step[] } };
      return scripts(path, 'runs', runs.steps ?? []);
    }),
  ];
}
