/** Programs run in their own process, for tests that must keep this one free to answer. */
import { execFile } from 'node:child_process';
import { REPOSITORY_ROOT } from '../../infra/repository.ts';

/** A process's exit status and output. */
export interface Run {
  readonly status: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs a program in its own process, without blocking this one (whose gateway must answer). */
export function run(file: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      file,
      args,
      {
        cwd: REPOSITORY_ROOT,
        encoding: 'utf8',
        env: { ...process.env, NODE_NO_WARNINGS: '1', ...env },
      },
      (error, stdout, stderr) =>
        resolve({ status: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}
