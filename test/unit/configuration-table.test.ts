/**
 * docs/architecture.md's "Configuration" has a row for every setting of the schemas
 * (shared/function-settings.ts, shared/settings.ts, which composes both): a setting added to the
 * code is added to the table in the same change.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPOSITORY_ROOT } from '../../infra/repository.ts';
import { FunctionSettingsSchema } from '../../shared/function-settings.ts';
import { SettingsSchema } from '../../shared/settings.ts';

/** The variables the first column of the Configuration table names, e.g. `PORT`. */
function tableVariables(): Set<string> {
  const architecture = readFileSync(join(REPOSITORY_ROOT, 'docs/architecture.md'), 'utf8');
  const section = architecture.split(/^## Configuration$/m)[1]?.split(/^## /m)[0] ?? '';
  const firstColumns = section
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .map((line) => line.split('|')[1] ?? '');
  return new Set(
    firstColumns.flatMap((cell) => [...cell.matchAll(/`(\w+)`/g)].map(([, name = '']) => name)),
  );
}

describe("docs/architecture.md's Configuration", () => {
  it('has a row for every setting of the schemas', () => {
    const documented = tableVariables();
    const settings = Object.keys(SettingsSchema.entries);

    expect(settings).toEqual(expect.arrayContaining(Object.keys(FunctionSettingsSchema.entries)));
    expect(documented).toContain('PORT');
    expect(settings.filter((name) => !documented.has(name))).toEqual([]);
  });
});
