/**
 * `npm run load` (infra/cli/load.ts): Artillery runs the load scenarios of load/petstore.yml at a
 * small scale against a fresh local stack on loopback, and its JSON report shows every request
 * answered 2xx, every virtual user completed and listPets's cursor followed.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { REPOSITORY_ROOT } from '../../infra/repository.ts';
import {
  EXIT_TIMEOUT_MS,
  freshStack,
  START_TIMEOUT_MS,
  startedStack,
  stopAll,
} from '../support/local-stack.ts';

afterEach(stopAll);

/** Bound of Artillery's run: its start takes most of it on a busy machine. */
const LOAD_TIMEOUT_MS = 180_000;

/** Pets in the store before the run: more than one page of the scenario's 20, fewer than two. */
const SEEDED = 25;

describe('npm run load', { timeout: START_TIMEOUT_MS + LOAD_TIMEOUT_MS + EXIT_TIMEOUT_MS }, () => {
  it('sends the scenarios at 5 users/s for 2 s with every answer 2xx and each listing paged', async () => {
    // GIVEN a local stack with a Business key and a page and a half of available pets
    const { started, url } = await startedStack(await freshStack());
    const [, token] = /^ {2}business +key_\w+ +(pet_local_\S+)$/m.exec(started.stdout()) ?? [];
    const headers = { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' };
    for (let i = 0; i < SEEDED; i++) {
      const body = JSON.stringify({ name: `seed ${i}`, categoryId: 1, status: 'available' });
      expect((await fetch(`${url}/pets`, { method: 'POST', headers, body })).status).toBe(201);
    }
    const dir = await mkdtemp(join(tmpdir(), 'petstore-load-'));
    const report = join(dir, 'report.json');

    // WHEN the load command runs at 5 users/s for 2 s (the key from the environment)
    await promisify(execFile)(
      process.execPath,
      [
        '--import',
        'tsx',
        'infra/cli/load.ts',
        '--target',
        url,
        '--rate',
        '5',
        '--duration',
        '2',
        '--output',
        report,
      ],
      {
        cwd: REPOSITORY_ROOT,
        env: { ...process.env, PETSTORE_API_KEY: token },
        timeout: LOAD_TIMEOUT_MS,
        maxBuffer: 16 * 1024 * 1024,
      },
    );

    // THEN every user completed, every answer was 2xx, and each listing read its second page
    const { counters } = JSON.parse(await readFile(report, 'utf8')).aggregate as {
      counters: Record<string, number>;
    };
    await rm(dir, { recursive: true });
    expect(counters['vusers.created']).toBe(10);
    expect(counters['vusers.completed']).toBe(10);
    expect(counters['vusers.failed'] ?? 0).toBe(0);
    expect(Object.keys(counters).filter((name) => name.startsWith('errors.'))).toEqual([]);
    const codes = Object.keys(counters).filter((name) => name.startsWith('http.codes.'));
    expect(codes.every((name) => /^http\.codes\.2\d\d$/.test(name))).toBe(true);
    expect((counters['http.codes.200'] ?? 0) + (counters['http.codes.201'] ?? 0)).toBe(
      counters['http.requests'],
    );
    const listings = counters['vusers.created_by_name.listPets by status'] ?? 0;
    expect(counters['plugins.metrics-by-endpoint.{{ next }}.codes.200'] ?? 0).toBe(2 * listings);
  });
});
