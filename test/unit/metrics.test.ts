import { afterEach, describe, expect, it, vi } from 'vitest';

afterEach(() => {
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
  vi.resetModules();
});

/** The EMF document `countOne(name)` prints in a container whose stage is `stage`. */
async function emittedFor(
  stage: string | undefined,
  name: string,
): Promise<Record<string, unknown>> {
  vi.resetModules();
  vi.stubEnv('POWERTOOLS_METRICS_DISABLED', 'false');
  vi.stubEnv('POWERTOOLS_DEV', 'false');
  vi.stubEnv('PETSTORE_STAGE', stage ?? '');
  const lines: string[] = [];
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
    lines.push(String(chunk));
    return true;
  });
  vi.spyOn(console, 'log').mockImplementation((line) => lines.push(String(line)));
  const { countOne } = await import('../../shared/metrics.ts');
  countOne(name);
  const line = lines.find((l) => l.includes('"_aws"'));
  if (!line) throw new Error(`no EMF line among ${JSON.stringify(lines)}`);
  return JSON.parse(line);
}

describe('countOne', () => {
  it('emits the metric with the service and the stage of PETSTORE_STAGE as dimensions', async () => {
    const emf = await emittedFor('production', 'RateLimiterUnavailable');

    expect(emf).toMatchObject({
      service: 'petstore',
      stage: 'production',
      RateLimiterUnavailable: 1,
      _aws: {
        CloudWatchMetrics: [
          {
            Namespace: 'Petstore',
            Dimensions: [expect.arrayContaining(['service', 'stage'])],
            Metrics: [{ Name: 'RateLimiterUnavailable', Unit: 'Count' }],
          },
        ],
      },
    });
  });

  it('names the stage local when PETSTORE_STAGE is unset', async () => {
    expect(await emittedFor(undefined, 'RateLimitRefused')).toMatchObject({ stage: 'local' });
  });
});
