import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/**
 * The import graph of `src/` has no upward arrow and no cycle: each top-level
 * unit (a folder, or a file at the root of `src/`) sits in one layer of
 * {@link LAYERS} and imports only units of lower layers. Units of one layer
 * do not import each other (the worker half and the API half stay apart).
 * Beside it, no file of `src/` is part of an import cycle, type imports included.
 *
 * A new top-level folder must be placed in a layer here; the spec fails until it is.
 */

/** The layers, bottom first. Each entry: the units of the layer and why they sit there. */
const LAYERS: ReadonlyArray<{ units: string[]; what: string }> = [
  { units: ['vocabulary.ts', 'sleep.ts', 'wait-at-most.ts'], what: 'the domain words and small helpers everything may use' },
  { units: ['shutdown-steps.ts'], what: 'the bounded, named waits of every shutdown hook (on waitAtMost)' },
  { units: ['data-model', 'release', 'handlers', 'client'], what: 'the entities, the release facts, the handler contract, the HTTP client' },
  { units: ['config', 'tracing'], what: 'the validated settings; the trace context and spans (on @opentelemetry/api only)' },
  { units: ['database'], what: 'connections, migrations and the schema runner' },
  { units: ['http', 'metrics', 'dashboard', 'testing'], what: 'the HTTP helpers of the routes, the metrics registry, the dashboard files, the testing entry' },
  { units: ['events'], what: 'the lifecycle events: the sink both halves publish to after a commit, the listeners of the host app' },
  { units: ['queue', 'actions'], what: 'the worker half and the API half, independent of each other' },
  { units: ['retention', 'health', 'metrics-endpoint', 'demo'], what: 'jobs and routes beside the two halves' },
  {
    units: ['group-depth-limits', 'schedules', 'bulk-operations', 'flow-control'],
    what: 'the operator controls: they enqueue and command through the API half',
  },
  { units: ['docs'], what: 'the OpenAPI pages' },
  { units: ['action-queue'], what: 'the library module that assembles them' },
  {
    units: ['service'],
    what: 'the service around the library: root module, starter, security, logging, the in-process app of the tests',
  },
  { units: ['index.ts'], what: 'the public entry' },
  { units: ['main.ts'], what: "this repository's service process" },
  {
    units: ['cli'],
    what: 'the command line (ordered-action-queue <command>): it calls the services and their statements, and nothing imports it',
  },
];

/**
 * The folders of `src/queue/` (the worker half) by role, bottom first, with
 * the same rule inside it: a folder imports only folders of lower layers, and
 * folders of one layer do not import each other. So lease/ never imports
 * worker/ (the reaper publishes what it reaped instead of calling the worker),
 * and claim/ never imports attempt/. src/queue/README.md tells the same.
 */
const QUEUE_LAYERS: ReadonlyArray<{ units: string[]; what: string }> = [
  { units: ['sql'], what: 'the hot-path statement texts' },
  { units: ['instance'], what: 'what the whole instance shares: its id, clock, slots, metrics, lease timing, held units, how a handler is stopped' },
  { units: ['outcome'], what: 'what a handler returned or threw, as the trace keeps it' },
  { units: ['containment', 'isolation'], what: 'containing misbehaving handlers; running handlers in threads' },
  { units: ['claim', 'lease', 'wake'], what: 'taking work; keeping and reaping leases; being woken' },
  { units: ['attempt'], what: 'one attempt: run the handler, keep its lease, record its end' },
  { units: ['worker'], what: 'the loop that claims and dispatches, and the suspect runner' },
  { units: ['queue.module.ts'], what: 'the Nest module that assembles them' },
];

const SRC = __dirname;

/** Relative import specifiers of a source text: `from '…'`, `import('…')`, `import '…'`, `require('…')`. */
export function relativeImports(text: string): string[] {
  const found = text.matchAll(/(?:\bfrom\s+|\bimport\s*\(\s*|\bimport\s+|\brequire\s*\(\s*)'(\.{1,2}\/[^']*)'/g);
  return [...found].map((m) => m[1]);
}

/** The top-level unit of a path relative to `src/` (or to a folder of it): its first folder, or the file itself at the root. */
function unitOf(path: string): string {
  return path.split('/')[0];
}

/** The source file an import of `from` names (relative to `src/`), or null when it is outside `src/` or not a TypeScript file. */
function resolveImport(from: string, specifier: string): string | null {
  const base = resolve(dirname(join(SRC, from)), specifier);
  for (const candidate of [base, `${base}.ts`, join(base, 'index.ts')]) {
    if (candidate.endsWith('.ts') && existsSync(candidate)) {
      const rel = relative(SRC, candidate).split('\\').join('/');
      return rel.startsWith('..') ? null : rel;
    }
  }
  return null;
}

/** Every non-spec TypeScript file under `src/`, relative to it. */
function sourceFiles(): string[] {
  return readdirSync(SRC, { recursive: true, encoding: 'utf8' })
    .map((f) => f.split('\\').join('/'))
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.spec.ts') && !f.startsWith('client/generated/'));
}

/** Edges `file → imported file` of `src/`. */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles()) {
    const targets = relativeImports(readFileSync(join(SRC, file), 'utf8'))
      .map((s) => resolveImport(file, s))
      .filter((t): t is string => t !== null);
    graph.set(file, targets);
  }
  return graph;
}

/**
 * The edges among the files under `folder` (e.g. `queue/`), with paths made relative to it.
 * @param edges file → imported files, relative to `src/`.
 */
export function withinFolder(edges: Map<string, string[]>, folder: string): Map<string, string[]> {
  const inside = new Map<string, string[]>();
  for (const [file, targets] of edges) {
    if (!file.startsWith(folder)) continue;
    inside.set(
      file.slice(folder.length),
      targets.filter((t) => t.startsWith(folder)).map((t) => t.slice(folder.length)),
    );
  }
  return inside;
}

/**
 * Offences against the layer order: an import of a unit in the same or a
 * higher layer, or from a unit no layer names.
 * @param edges file → imported files, relative to `src/`.
 * @returns `file → import: reason` lines, empty when the graph keeps the order.
 */
export function layerOffences(edges: Map<string, string[]>, layers: ReadonlyArray<{ units: string[] }>): string[] {
  const layerOf = new Map<string, number>();
  layers.forEach((layer, i) => layer.units.forEach((unit) => layerOf.set(unit, i)));
  const offences: string[] = [];
  for (const [file, targets] of edges) {
    const from = unitOf(file);
    const fromLayer = layerOf.get(from);
    if (fromLayer === undefined) {
      offences.push(`${file}: ${from} is in no layer (add it to LAYERS in src/import-layers.spec.ts)`);
      continue;
    }
    for (const target of targets) {
      const to = unitOf(target);
      if (to === from) continue;
      const toLayer = layerOf.get(to);
      if (toLayer === undefined) offences.push(`${file} → ${target}: ${to} is in no layer`);
      else if (toLayer > fromLayer) offences.push(`${file} → ${target}: upward import (${from} is below ${to})`);
      else if (toLayer === fromLayer) offences.push(`${file} → ${target}: ${from} and ${to} share a layer and must not import each other`);
    }
  }
  return offences;
}

/** The import cycles among files, each as `a → b → … → a` (one per strongly connected set found by a depth-first walk). */
export function importCycles(edges: Map<string, string[]>): string[] {
  const cycles: string[] = [];
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (file: string): void => {
    state.set(file, 'open');
    stack.push(file);
    for (const next of edges.get(file) ?? []) {
      if (state.get(next) === 'open') cycles.push([...stack.slice(stack.indexOf(next)), next].join(' → '));
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(file, 'done');
  };
  for (const file of edges.keys()) if (!state.has(file)) visit(file);
  return cycles;
}

describe('the import graph of src/', () => {
  const graph = importGraph();

  it('imports only downward, in the layer order', () => {
    expect(layerOffences(graph, LAYERS)).toEqual([]);
  });

  it('inside src/queue/, imports only downward, in the order of its folder roles', () => {
    expect(layerOffences(withinFolder(graph, 'queue/'), QUEUE_LAYERS)).toEqual([]);
  });

  it('has no import cycle between files', () => {
    expect(importCycles(graph)).toEqual([]);
  });

  it('sees the imports it checks (the graph is not empty)', () => {
    expect(graph.get('database/data-source-options.ts')).toContain('data-model/action.entity.ts');
    expect(withinFolder(graph, 'queue/').get('worker/worker.service.ts')).toContain('lease/reaped-leases.ts');
  });
});

describe('the offence detectors', () => {
  const layers = [{ units: ['low'] }, { units: ['mid', 'side'] }, { units: ['top'] }];

  it('accepts a downward import and an import inside one unit', () => {
    const edges = new Map([
      ['top/a.ts', ['mid/b.ts', 'low/c.ts']],
      ['mid/b.ts', ['mid/d.ts']],
    ]);
    expect(layerOffences(edges, layers)).toEqual([]);
  });

  it('names an upward import, an import between siblings and a unit of no layer', () => {
    const edges = new Map([
      ['low/a.ts', ['top/b.ts']],
      ['mid/c.ts', ['side/d.ts']],
      ['stray/e.ts', []],
    ]);
    expect(layerOffences(edges, layers)).toEqual([
      'low/a.ts → top/b.ts: upward import (low is below top)',
      'mid/c.ts → side/d.ts: mid and side share a layer and must not import each other',
      'stray/e.ts: stray is in no layer (add it to LAYERS in src/import-layers.spec.ts)',
    ]);
  });

  it('reads the edges inside one folder relative to it, dropping those that leave it', () => {
    const edges = new Map([
      ['queue/lease/a.ts', ['queue/worker/b.ts', 'config/c.ts']],
      ['health/d.ts', ['queue/worker/b.ts']],
    ]);
    expect(withinFolder(edges, 'queue/')).toEqual(new Map([['lease/a.ts', ['worker/b.ts']]]));
    expect(layerOffences(withinFolder(edges, 'queue/'), [{ units: ['lease'] }, { units: ['worker'] }])).toEqual([
      'lease/a.ts → worker/b.ts: upward import (lease is below worker)',
    ]);
  });

  it('finds a cycle through three files', () => {
    const edges = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts']],
    ]);
    expect(importCycles(edges)).toEqual(['a.ts → b.ts → c.ts → a.ts']);
  });

  it('reads static, type, re-export and dynamic imports', () => {
    const text = `import { a } from './a';\nimport type { B } from '../b';\nexport { c } from './c';\nconst d = await import('./d');\nimport './e';\nimport x from 'pkg';`;
    expect(relativeImports(text)).toEqual(['./a', '../b', './c', './d', './e']);
  });
});
