/**
 * The import graph of shared/, read by dependency-cruiser: the folders show the hexagon
 * (docs/architecture.md, "Layout"). Rules and ports (shared/<feature>/ and the root files) reach
 * neither the AWS SDK nor aws-lambda, however indirectly; nothing in http/ reaches an adapter;
 * only the adapters (dynamodb/, apigateway/, eventbridge/, cognito/) import the AWS SDK; no folder
 * imports another that imports it back, and no file another that imports it back however
 * indirectly; and the runtime (functions/ and shared/) imports nothing of infra/, the deployment
 * folder.
 */
import { cruise, type IModule } from 'dependency-cruiser';
import { beforeAll, describe, expect, it } from 'vitest';

/** The folders of adapters: the only ones that talk to AWS. */
const ADAPTERS = [
  'shared/dynamodb/',
  'shared/apigateway/',
  'shared/eventbridge/',
  'shared/cognito/',
];

/** Whether `path` is in an adapters' folder. */
const isAdapter = (path: string) => ADAPTERS.some((folder) => path.startsWith(folder));

/** The folders of rules and ports, one per feature. */
const FEATURES = [
  'shared/pets/',
  'shared/idempotency/',
  'shared/keys/',
  'shared/rate-limit/',
  'shared/events/',
  'shared/portal/',
];

/** The keys table's writer, the key service's store: no unaudited write of a key exists. */
const KEYS_WRITER = 'shared/dynamodb/key-store.ts';

/** The key service's composition root, which alone builds its store (for every door). */
const KEY_SERVICE_ROOT = 'functions/admin/composition-root.ts';

let modules: IModule[];
/** Every module of functions/ and shared/, the runtime. */
let runtime: IModule[];
/** Every module of the production code: the runtime, infra/ and bench/ (not test/). */
let production: IModule[];
/** Each file of shared/ to the files of shared/ it imports. */
let edges: Map<string, Set<string>>;
beforeAll(async () => {
  const result = await cruise(['shared', 'functions', 'infra', 'bench'], {
    tsPreCompilationDeps: true,
    doNotFollow: { path: 'node_modules' },
  });
  if (typeof result.output === 'string') throw new Error('expected the cruise result as data');
  production = result.output.modules.filter((module) =>
    /^(functions|shared|infra|bench)\//.test(module.source),
  );
  runtime = production.filter((module) => /^(functions|shared)\//.test(module.source));
  modules = runtime.filter((module) => module.source.startsWith('shared/'));
  edges = new Map(
    modules.map((module) => [
      module.source,
      new Set(module.dependencies.map((dependency) => dependency.resolved)),
    ]),
  );
}, 60_000);

/** `shared/<folder>` for a file in a folder of shared/, the file itself for a root file. */
function nodeOf(path: string): string {
  const [, folder, rest] = path.split('/');
  return rest === undefined ? path : `shared/${folder}`;
}

/** The nodes that `from` reaches over `graph`, itself excluded unless on a cycle. */
function reachable(graph: Map<string, Set<string>>, from: string): Set<string> {
  const seen = new Set<string>();
  const pending = [...(graph.get(from) ?? [])];
  for (let node = pending.pop(); node !== undefined; node = pending.pop()) {
    if (seen.has(node)) continue;
    seen.add(node);
    pending.push(...(graph.get(node) ?? []));
  }
  return seen;
}

/** The packages `path` imports itself (`@aws-sdk/lib-dynamodb`, `aws-lambda`…). */
function packagesOf(path: string): string[] {
  const module = modules.find((each) => each.source === path);
  return (module?.dependencies ?? [])
    .filter((dependency) => !dependency.resolved.startsWith('shared/'))
    .map((dependency) => dependency.module);
}

const isAwsSdk = (name: string) => name.startsWith('@aws-sdk/');

/** `<file>: <finding>` for each finding of `forbidden` on a file of `files` or one it reaches. */
function reaching(files: string[], forbidden: (path: string) => string[]): string[] {
  return files.flatMap((file) =>
    [file, ...reachable(edges, file)].flatMap((path) =>
      forbidden(path).map((finding) => `${file}: ${finding}`),
    ),
  );
}

/** Every file of shared/ for which `keep` holds. */
function files(keep: (path: string) => boolean): string[] {
  return modules.map((module) => module.source).filter(keep);
}

describe('the import graph of shared/', () => {
  it('has no cycle between its folders and root files', () => {
    const nodes = new Map<string, Set<string>>();
    for (const module of modules) {
      const from = nodeOf(module.source);
      for (const { resolved } of module.dependencies) {
        const to = resolved.startsWith('shared/') ? nodeOf(resolved) : undefined;
        if (to && to !== from) nodes.set(from, (nodes.get(from) ?? new Set()).add(to));
      }
    }

    const cyclic = [...nodes.keys()].filter((node) => reachable(nodes, node).has(node));

    expect(nodes.get('shared/http')).toContain('shared/rate-limit');
    expect(cyclic).toEqual([]);
  });

  it("has no cycle between its files, however indirect (dependency-cruiser's `circular`)", () => {
    const circular = runtime.flatMap((module) =>
      module.dependencies
        .filter((dependency) => dependency.circular)
        .map((dependency) => `${module.source} imports ${dependency.resolved}`),
    );

    expect(runtime.map((module) => module.source)).toContain('shared/dynamodb/pet-creator.ts');
    expect(circular).toEqual([]);
  });

  it('keeps rules and ports (feature folders, root files) from the AWS SDK and aws-lambda', () => {
    const rules = files(
      (path) => FEATURES.some((folder) => path.startsWith(folder)) || nodeOf(path) === path,
    );

    for (const folder of FEATURES) expect(rules.some((path) => path.startsWith(folder))).toBe(true);
    expect(rules).toContain('shared/settings.ts');
    expect(
      reaching(rules, (path) =>
        packagesOf(path)
          .filter((name) => isAwsSdk(name) || name === 'aws-lambda')
          .map((name) => `${path} imports ${name}`),
      ),
    ).toEqual([]);
  });

  it('keeps http/ from every adapter (dynamodb/, apigateway/, eventbridge/), directly and through what it imports', () => {
    const http = files((path) => path.startsWith('shared/http/'));

    expect(http).toContain('shared/http/handler.ts');
    expect(reaching(http, (path) => (isAdapter(path) ? [`reaches ${path}`] : []))).toEqual([]);
  });

  it('has the AWS SDK imported by the adapters (dynamodb/, apigateway/, eventbridge/) only', () => {
    const importers = files((path) => packagesOf(path).some(isAwsSdk));

    expect(importers).toContain('shared/dynamodb/clients.ts');
    expect(importers).toContain('shared/apigateway/key-registration.ts');
    expect(importers.filter((path) => !isAdapter(path))).toEqual([]);
  });

  it('keeps the runtime (functions/ and shared/) from importing infra/', () => {
    const intoInfra = runtime.flatMap((module) =>
      module.dependencies
        .filter((dependency) => dependency.resolved.startsWith('infra/'))
        .map((dependency) => `${module.source} imports ${dependency.resolved}`),
    );

    expect(runtime.map((module) => module.source)).toContain('functions/handlers/get-pet.ts');
    expect(intoInfra).toEqual([]);
  });

  it("has the keys table's writer imported by the key service's composition root only", () => {
    const importers = production
      .filter((module) => module.dependencies.some(({ resolved }) => resolved === KEYS_WRITER))
      .map((module) => module.source);

    expect(production.map((module) => module.source)).toContain('infra/local/banner.ts');
    expect(importers).toEqual([KEY_SERVICE_ROOT]);
  });
});
