/**
 * The import graph of shared/, read by dependency-cruiser: no folder imports another that imports
 * it back (each folder under shared/ is one node, each root file another), and the ports and the
 * stores' pure rules import nothing of the AWS SDK or Lambda's types, however indirectly.
 */
import { cruise, type IModule } from 'dependency-cruiser';
import { beforeAll, describe, expect, it } from 'vitest';

/** The ports (persistence and limiting as their users see them) and the stores' pure rules. */
const PORTS = [
  'shared/pets/pet-store.ts',
  'shared/pets/store-rules.ts',
  'shared/idempotency/record.ts',
  'shared/idempotency/outcome.ts',
  'shared/rate-limit/rate-limiter.ts',
  'shared/rate-limit/decision.ts',
  'shared/keys/key-lookup.ts',
  'shared/keys/key-administration.ts',
  'shared/keys/key-records.ts',
];

let modules: IModule[];
beforeAll(async () => {
  const result = await cruise(['shared'], {
    tsPreCompilationDeps: true,
    doNotFollow: { path: 'node_modules' },
  });
  if (typeof result.output === 'string') throw new Error('expected the cruise result as data');
  modules = result.output.modules.filter((module) => module.source.startsWith('shared/'));
}, 60_000);

/** `shared/<folder>` for a file in a folder of shared/, the file itself for a root file. */
function nodeOf(path: string): string {
  const [, folder, rest] = path.split('/');
  return rest === undefined ? path : `shared/${folder}`;
}

/** The nodes that `from` reaches over `edges`, itself excluded unless on a cycle. */
function reachable(edges: Map<string, Set<string>>, from: string): Set<string> {
  const seen = new Set<string>();
  const pending = [...(edges.get(from) ?? [])];
  for (let node = pending.pop(); node !== undefined; node = pending.pop()) {
    if (seen.has(node)) continue;
    seen.add(node);
    pending.push(...(edges.get(node) ?? []));
  }
  return seen;
}

describe('the import graph of shared/', () => {
  it('has no cycle between its folders and root files', () => {
    const edges = new Map<string, Set<string>>();
    for (const module of modules) {
      const from = nodeOf(module.source);
      for (const { resolved } of module.dependencies) {
        const to = resolved.startsWith('shared/') ? nodeOf(resolved) : undefined;
        if (to && to !== from) edges.set(from, (edges.get(from) ?? new Set()).add(to));
      }
    }

    const cyclic = [...edges.keys()].filter((node) => reachable(edges, node).has(node));

    expect(edges.get('shared/http')).toContain('shared/rate-limit');
    expect(cyclic).toEqual([]);
  });

  it.each(PORTS)(
    'keeps %s free of the AWS SDK and aws-lambda, directly and through what it imports',
    (port) => {
      const byPath = new Map(modules.map((module) => [module.source, module]));
      const edges = new Map(
        modules.map((module) => [
          module.source,
          new Set(module.dependencies.map((dependency) => dependency.resolved)),
        ]),
      );
      const reached = [...reachable(edges, port)];

      expect(byPath.has(port)).toBe(true);
      expect(reached.filter((path) => /@aws-sdk|aws-lambda/.test(path))).toEqual([]);
    },
  );
});
