/**
 * `npm run load -- --target URL --rate N [--duration S] [--key KEY] [--output FILE]`: runs the load
 * scenarios of `load/petstore.yml` with Artillery on this machine, telemetry off. For rates one
 * machine cannot send, the same file runs on AWS with `artillery run-fargate` (docs/operations.md,
 * "Load against a stage"). Artillery is load/'s own npm project (load/package.json and its
 * lockfile), installed on first use.
 */
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { InvalidArgumentError, Option } from 'commander';
import { REPOSITORY_ROOT } from '../repository.ts';
import {
  type CommandOutput,
  type CommandStyle,
  type ExitCode,
  newProgram,
  runMain,
  runProgram,
} from './common/program.ts';

/** The load scenarios' npm project: Artillery and its cloud SDKs, kept out of the API's install. */
export const LOAD_PROJECT = resolve(REPOSITORY_ROOT, 'load');

/** The scenarios' file. */
export const SCENARIOS = join(LOAD_PROJECT, 'petstore.yml');

/** How the load command reports errors: `load: <message>`, a usage error followed by the help. */
const LOAD_STYLE: CommandStyle = { errorPrefix: 'load: ' };

/** What {@link runLoad} runs. */
export interface LoadOptions {
  /** The stage's base URL, ending in `/v1`, e.g. `http://127.0.0.1:3000/v1`. */
  readonly target: string;
  /** Virtual users arriving per second, each running one scenario (1 to 5 requests). */
  readonly rate: number;
  /** Seconds of arrivals. */
  readonly duration: number;
  /** The bearer API key. */
  readonly key: string;
  /** Where Artillery writes its JSON report. @default - no report file */
  readonly output?: string;
}

/**
 * Runs Artillery on the scenarios, its output going to this process's stdout and stderr.
 *
 * @returns Artillery's exit status (0 when it ran; failed requests show in its report, not here).
 */
export async function runLoad(options: LoadOptions): Promise<number> {
  installLoadProject();
  const phases = [{ duration: options.duration, arrivalRate: options.rate }];
  const child = spawn(
    process.execPath,
    [
      artilleryBin(),
      'run',
      '--target',
      options.target.replace(/\/$/, ''),
      '--overrides',
      JSON.stringify({ config: { phases } }),
      ...(options.output ? ['--output', options.output] : []),
      SCENARIOS,
    ],
    {
      cwd: REPOSITORY_ROOT,
      stdio: 'inherit',
      env: {
        ...process.env,
        PETSTORE_API_KEY: options.key,
        // Artillery reports usage to its makers unless told not to.
        ARTILLERY_DISABLE_TELEMETRY: 'true',
      },
    },
  );
  const [code] = await once(child, 'exit');
  return (code as number | null) ?? 1;
}

/**
 * Installs {@link LOAD_PROJECT}'s dependencies from its lockfile (`npm ci --prefix load`) when
 * Artillery is not there yet; npm's output goes to stderr.
 *
 * @throws Error when npm fails (no registry, a lockfile out of step with load/package.json).
 */
export function installLoadProject(): void {
  if (existsSync(join(LOAD_PROJECT, 'node_modules/artillery/package.json'))) return;
  const { status } = spawnSync('npm', ['ci', '--prefix', LOAD_PROJECT, '--no-audit', '--no-fund'], {
    stdio: ['ignore', process.stderr, process.stderr],
  });
  if (status !== 0) throw new Error(`npm ci --prefix load exited with status ${status ?? 'none'}`);
}

/** Artillery's command-line entry, from the package.json `bin` of load/'s Artillery. */
function artilleryBin(): string {
  const load = createRequire(join(LOAD_PROJECT, 'package.json'));
  const manifest = load.resolve('artillery/package.json');
  const { bin } = load('artillery/package.json') as { bin: Record<string, string> };
  return join(dirname(manifest), bin.artillery ?? 'bin/run');
}

/** A whole number of at least 1, for commander. */
function wholeNumber(text: string): number {
  const value = Number(text);
  if (!/^[0-9]+$/.test(text) || value < 1) {
    throw new InvalidArgumentError('must be a whole number >= 1.');
  }
  return value;
}

/** The command on `args`: parses, then runs {@link runLoad}. */
export function loadCommand(args: readonly string[], output: CommandOutput): Promise<ExitCode> {
  const program = newProgram('npm run load --', output, LOAD_STYLE)
    .description(
      'Sends the load scenarios (load/petstore.yml) to a stage with Artillery, from this machine.',
    )
    .requiredOption('--target <url>', 'The base URL, ending in /v1, e.g. http://127.0.0.1:3000/v1.')
    .requiredOption(
      '--rate <n>',
      'Virtual users arriving per second (each runs one scenario).',
      wholeNumber,
    )
    .option('--duration <seconds>', 'Seconds of arrivals.', wholeNumber, 60)
    .addOption(
      new Option('--key <key>', 'The bearer API key.')
        .env('PETSTORE_API_KEY')
        .makeOptionMandatory(),
    )
    .option('--output <file>', "Write Artillery's JSON report to this file.")
    .action(async (options: LoadOptions) => {
      const code = await runLoad(options);
      if (code !== 0) throw new Error(`artillery exited with status ${code}`);
    });
  return runProgram(program, args, output, LOAD_STYLE);
}

await runMain(import.meta.url, LOAD_STYLE, loadCommand);
