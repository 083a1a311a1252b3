/**
 * The repository's GitHub Actions files as GitHub reads them: `.github/workflows/*.yml` through
 * GitHub's own parser (`@actions/workflow-parser`, which the Actions service and VS Code's
 * extension run), parsed with `yaml` for the tests' own questions, every `run:` script, a job's
 * steps as the runner runs them (local composite actions expanded) and whether a step's `if`
 * lets it run (GitHub's expression evaluator, `@actions/expressions`).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { registerHooks } from 'node:module';
import { join } from 'node:path';
import { data, Evaluator, Lexer, Parser } from '@actions/expressions';
import { truthy } from '@actions/expressions/result';
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

/** A composite action's `action.yml`, as written. */
export interface Action {
  readonly inputs?: Record<string, { readonly default?: string }>;
  readonly runs: { readonly using: string; readonly steps?: Step[] };
}

/** A composite action, parsed with `yaml`; throws when `./.github/actions/<name>` has no action.yml. */
export function readAction(uses: string): Action {
  const path = join(uses, 'action.yml');
  if (!existsSync(join(REPOSITORY_ROOT, path))) throw new Error(`${uses} has no action.yml`);
  return parse(readText(path)) as Action;
}

/** A step as the runner runs it: in a composite action, with that action's inputs. */
export interface ResolvedStep extends Step {
  /** The composite action whose step this is (`./.github/actions/<name>`); none for a job's own. */
  readonly action?: string;
  /** The action's inputs: the caller's `with`, else each input's default. */
  readonly inputs?: Record<string, string>;
}

/** Replaces each `${{ inputs.<name> }}` of `text` by its value in `inputs`. */
function substituteInputs(text: string, inputs: Record<string, string>): string {
  return text.replace(/\$\{\{\s*inputs\.([\w-]+)\s*\}\}/g, (_, name: string) => {
    const value = inputs[name];
    if (value === undefined) throw new Error(`no input ${name}`);
    return value;
  });
}

/** {@link substituteInputs} on every value of a map. */
function substituteAll(
  map: Record<string, string> | undefined,
  inputs: Record<string, string>,
): Record<string, string> | undefined {
  return (
    map &&
    Object.fromEntries(Object.entries(map).map(([k, v]) => [k, substituteInputs(`${v}`, inputs)]))
  );
}

/**
 * A job's steps as the runner runs them: each `uses: ./.github/actions/<name>` (a local composite
 * action) replaced by that action's steps, recursively, their `${{ inputs.<name> }}` in `run`,
 * `env` and `with` replaced by the caller's `with` value or the input's default; `if` conditions
 * are kept as written, to evaluate with {@link runsWhen} (which binds `inputs`).
 *
 * @throws When a local action has no action.yml, or a step names an input the action lacks.
 */
export function resolveSteps(steps: readonly Step[]): ResolvedStep[] {
  return steps.flatMap((step): ResolvedStep[] => {
    if (!step.uses?.startsWith('./')) return [step];
    const action = readAction(step.uses);
    const inputs = Object.fromEntries(
      Object.entries(action.inputs ?? {}).map(([name, input]) => [
        name,
        step.with?.[name] ?? input.default ?? '',
      ]),
    );
    return resolveSteps(
      (action.runs.steps ?? []).map((inner) => ({
        ...inner,
        run: inner.run === undefined ? undefined : substituteInputs(inner.run, inputs),
        env: substituteAll(inner.env, inputs),
        with: substituteAll(inner.with, inputs),
      })),
    ).map((inner) => ({ action: step.uses, inputs, ...inner }));
  });
}

/** What a step's `if` sees: whether an earlier step failed, and earlier steps' outputs by id. */
export interface RunState {
  readonly failed: boolean;
  readonly outputs?: Record<string, Record<string, string>>;
}

/** A string, map or nested map as the expressions' data. */
function toData(value: string | Record<string, unknown>): data.ExpressionData {
  if (typeof value === 'string') return new data.StringData(value);
  return new data.Dictionary(
    ...Object.entries(value).map(([key, inner]) => ({
      key,
      value: toData(inner as string | Record<string, unknown>),
    })),
  );
}

/**
 * Whether the runner runs `step` in `state`, its `if` (default `success()`) evaluated with GitHub's
 * own expression evaluator (`@actions/expressions`), `inputs` bound to the action's inputs,
 * `steps.<id>.outputs` to `state.outputs`, and success()/failure()/always()/cancelled() to
 * `state.failed`.
 */
export function runsWhen(step: ResolvedStep, state: RunState): boolean {
  const condition = (step.if ?? 'success()').replace(/^\$\{\{([\s\S]*)\}\}$/, '$1');
  const status = (name: string, value: boolean) => ({
    name,
    minArgs: 0,
    maxArgs: 0,
    call: () => new data.BooleanData(value),
  });
  const functions = [
    status('success', !state.failed),
    status('failure', state.failed),
    status('always', true),
    status('cancelled', false),
  ];
  const expr = new Parser(
    new Lexer(condition).lex().tokens,
    ['inputs', 'steps'],
    functions,
  ).parse();
  const steps = Object.fromEntries(
    Object.entries(state.outputs ?? {}).map(([id, outputs]) => [id, { outputs }]),
  );
  const context = toData({ inputs: step.inputs ?? {}, steps }) as data.Dictionary;
  const result = new Evaluator(expr, context, new Map(functions.map((f) => [f.name, f])));
  return truthy(result.evaluate());
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
