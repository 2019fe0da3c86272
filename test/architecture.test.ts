/**
 * Architecture invariants (docs/architecture.md): which layer of src/ may
 * import which, the core's independence from the editor, Node and the DOM,
 * the page's independence from the core, the frontends' independence from
 * each other, and no import cycles. Imports are read with TypeScript's parser
 * (test/imports.ts); every rule counts type-only imports too unless it says
 * "at run time".
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { isBuiltin } from 'node:module';
import * as esbuild from 'esbuild';
import ts from 'typescript';
import { cycleThrough, cyclicComponents, importGraph, importsOf, importsOfSource, sourceFiles, withoutEdges, type Graph } from './imports';

const ROOT = path.join(__dirname, '..');
const SRC = path.join(ROOT, 'src');
const FILES = sourceFiles(SRC);

/** `core/report/render.ts`: a path below src/, with forward slashes. */
const rel = (file: string): string => path.relative(SRC, file).split(path.sep).join('/');
const abs = (relPath: string): string => path.join(SRC, ...relPath.split('/'));

type Layer = 'core' | 'shared' | 'extension' | 'desktop' | 'node' | 'webview' | 'cli' | 'fuzz';

/**
 * What each layer may import: the layers whose code it may use (`uses`), the
 * layers it may name types of only (`typesOf`), and whether it may import
 * `vscode` or Node's built-in modules. npm packages are not restricted here.
 */
const LAYERS: Record<Layer, { uses: Layer[]; typesOf: Layer[]; vscode: boolean; node: boolean }> = {
  // Pure TypeScript: the analysis, the GPU table, the reports. Runs in Node, in the web extension host and in tests.
  core: { uses: ['core'], typesOf: [], vscode: false, node: false },
  // What the extension and the page share (the panel protocol): runs on both sides.
  shared: { uses: ['shared'], typesOf: ['core'], vscode: false, node: false },
  // The editor layer; also bundled for the web extension host, so no Node built-ins.
  extension: { uses: ['extension', 'shared', 'core'], typesOf: [], vscode: true, node: false },
  // The desktop extension's entries (dist/extension.js, dist/worker.js): the extension layer plus a Node worker thread.
  desktop: { uses: ['desktop', 'extension', 'shared', 'core', 'node'], typesOf: [], vscode: true, node: true },
  // Node-only code the CLI and the desktop extension share: running our own bundles from V8's code cache.
  node: { uses: ['node'], typesOf: [], vscode: false, node: true },
  // The chart page (dist/webview.js): the browser and Vega only.
  webview: { uses: ['webview', 'shared'], typesOf: ['core'], vscode: false, node: false },
  cli: { uses: ['cli', 'core', 'node'], typesOf: [], vscode: false, node: true },
  // The fuzzer (npm run fuzz), a development tool over the core.
  fuzz: { uses: ['fuzz', 'core'], typesOf: [], vscode: false, node: true },
};

function layerOf(file: string): Layer | undefined {
  const top = rel(file).split('/')[0];
  return top in LAYERS ? (top as Layer) : undefined;
}

const isNodeBuiltin = (specifier: string): boolean => specifier.startsWith('node:') || isBuiltin(specifier);

// ---------------------------------------------------------------------------
// Cycles
// ---------------------------------------------------------------------------

const ANALYZE = 'core/analyze.ts';

/**
 * TEMPORARY (issue 12). The CUDA frontend's evaluator is split by syntactic
 * category into files of functions that call one another (expressions ↔
 * calls ↔ statements ↔ loops): a run-time cycle inside
 * src/core/frontends/cuda/ that does not go through analyze.ts. It is named
 * here, file by file, so it cannot grow unseen; the engine rewrite of issue
 * 12 decides whether it stays (docs/architecture.md, "Cycles").
 */
const CUDA_EVALUATOR_CYCLE = [
  'core/frontends/cuda/asm.ts',
  'core/frontends/cuda/calls.ts',
  'core/frontends/cuda/expr.ts',
  'core/frontends/cuda/loops.ts',
  'core/frontends/cuda/stmt.ts',
  'core/frontends/cuda/threads.ts',
  'core/frontends/cuda/typesyn.ts',
];

/** Everything wrong with the cycles of `g` (paths below src/): the empty list when only the allowed cycles are left. */
function cycleProblems(g: Graph): string[] {
  const problems: string[] = [];
  const rest = g;
  for (const component of cyclicComponents(rest)) {
    const names = component.map(rel);
    if (JSON.stringify(names) === JSON.stringify(CUDA_EVALUATOR_CYCLE)) continue;
    const example = cycleThrough(rest, component[0])?.map(rel).join(' → ');
    problems.push(`import cycle among ${names.length} file(s): ${names.join(', ')}; e.g. ${example}`);
  }
  return problems;
}

// ---------------------------------------------------------------------------

describe('architecture', function () {
  // Reading every file's imports with TypeScript's parser takes a few seconds on a busy machine.
  this.timeout(60_000);

  describe('the import reader and the cycle finder', () => {
    it('tells type-only imports from run-time ones', () => {
      const src = [
        "import type { A } from './a';",
        "import { type B, type C } from './b';",
        "import { type D, E } from './c';",
        "import F from './d';",
        "import * as G from './e';",
        "import './f';",
        "export type { H } from './g';",
        "export * from './h';",
        "export { I } from './i';",
        "type J = import('./j').J;",
        "const k = () => import('./k');",
        "const l = require('./l');",
        "import m = require('./m');",
      ].join('\n');
      const got = importsOfSource(path.join(SRC, 'x.ts'), src).map((i) => `${i.specifier}:${i.typeOnly ? 'type' : 'run'}:${i.line}`);
      assert.deepEqual(got, ['./a:type:1', './b:type:2', './c:run:3', './d:run:4', './e:run:5', './f:run:6', './g:type:7', './h:run:8', './i:run:9', './j:type:10', './k:run:11', './l:run:12', './m:run:13']);
    });

    it('resolves relative imports to files and leaves packages unresolved', () => {
      const imports = importsOf(abs('core/report/renderDiff.ts'));
      assert.ok(imports.some((i) => i.target === abs('core/report/diff.ts')));
      assert.ok(imports.every((i) => i.target !== undefined), 'every import of renderDiff.ts is relative');
      assert.equal(importsOfSource(abs('x.ts'), "import * as v from 'vscode';")[0].target, undefined);
    });

    it('finds every cycle of a small graph, and none where there is none', () => {
      const g: Graph = new Map([
        ['a', new Set(['b'])],
        ['b', new Set(['c'])],
        ['c', new Set(['a', 'd'])],
        ['d', new Set(['e'])],
        ['e', new Set<string>()],
        ['f', new Set(['f'])],
        ['g', new Set(['h', 'e'])],
        ['h', new Set(['g'])],
      ]);
      assert.deepEqual(cyclicComponents(g), [['a', 'b', 'c'], ['f'], ['g', 'h']]);
      assert.deepEqual(cycleThrough(g, 'b'), ['b', 'c', 'a', 'b']);
      assert.deepEqual(cycleThrough(g, 'f'), ['f', 'f']);
      assert.equal(cycleThrough(g, 'd'), undefined);
      assert.deepEqual(cyclicComponents(withoutEdges(g, [['c', 'a'], ['f', 'f'], ['h', 'g']])), []);
      // A chain far deeper than the call stack: the finder is iterative.
      const chain: Graph = new Map(Array.from({ length: 20_000 }, (_, i) => [`n${i}`, new Set(i < 19_999 ? [`n${i + 1}`] : ['n0'])]));
      assert.equal(cyclicComponents(chain)[0]?.length, 20_000);
    });

    it('the cycle check fails on a cycle added to the real graph', () => {
      const g = importGraph(FILES, { typeOnly: true });
      assert.deepEqual(cycleProblems(g), []);
      const copy = (x: Graph): Graph => withoutEdges(x, []);
      // format.ts is imported by render.ts; make it import render.ts back.
      const bad = copy(g);
      bad.get(abs('core/report/format.ts'))!.add(abs('core/report/render.ts'));
      assert.match(cycleProblems(bad).join('\n'), /import cycle among \d+ file\(s\): core\/report\/format\.ts, (core\/report\/[a-z]+\.ts, )*core\/report\/render\.ts/);
      // A second way through analyze.ts is not forgiven either.
      const viaAnalyze = copy(g);
      viaAnalyze.get(abs('core/model/roofline.ts'))!.add(abs(ANALYZE));
      assert.match(cycleProblems(viaAnalyze).join('\n'), /core\/model\/roofline\.ts/);
      // Nor a CUDA evaluator cycle that grows.
      const grown = copy(g);
      grown.get(abs('core/frontends/cuda/expr.ts'))!.add(abs('core/frontends/cuda/frontend.ts'));
      assert.ok(cycleProblems(grown).length > 0);
    });
  });

  it('every folder of src/ is a layer with rules', () => {
    const unknown = FILES.filter((f) => layerOf(f) === undefined).map(rel);
    assert.deepEqual(unknown, [], 'add the folder to LAYERS (and to docs/architecture.md)');
  });

  it('each layer imports only the layers it may', () => {
    const bad: string[] = [];
    for (const f of FILES) {
      const from = layerOf(f)!;
      const rule = LAYERS[from];
      for (const i of importsOf(f)) {
        const at = `${rel(f)}:${i.line} → ${i.specifier}`;
        if (i.specifier.startsWith('.')) {
          const to = i.target ? layerOf(i.target) : undefined;
          if (!i.target) bad.push(`${at}: does not resolve`);
          else if (!to) bad.push(`${at}: outside src/`);
          else if (!rule.uses.includes(to) && !(i.typeOnly && rule.typesOf.includes(to)))
            bad.push(`${at}: ${from} may not import ${to}${rule.typesOf.includes(to) ? ' at run time (use `import type`)' : ''}`);
        } else if (i.specifier === 'vscode' && !rule.vscode) bad.push(`${at}: ${from} may not import vscode`);
        else if (isNodeBuiltin(i.specifier) && !rule.node) bad.push(`${at}: ${from} may not import Node built-ins`);
      }
    }
    assert.deepEqual(bad, []);
  });

  it('only src/extension (and the desktop entry over it) imports vscode', () => {
    const bad = FILES.filter((f) => layerOf(f) !== 'extension' && layerOf(f) !== 'desktop' && importsOf(f).some((i) => i.specifier === 'vscode')).map(rel);
    assert.deepEqual(bad, []);
    assert.ok(FILES.some((f) => layerOf(f) === 'extension' && importsOf(f).some((i) => i.specifier === 'vscode')), 'the extension does import vscode');
  });

  it('the analysis workers (src/extension/worker.ts, src/desktop/worker.ts and its entry) never load vscode', () => {
    // A worker has no `vscode` module: nothing its entry reaches at run time may import it.
    const runTime = importGraph(FILES, { typeOnly: false });
    const bad: string[] = [];
    for (const entry of ['extension/worker.ts', 'desktop/worker.ts', 'desktop/workerLaunch.ts']) {
      const seen = new Set<string>();
      const queue = [abs(entry)];
      while (queue.length) {
        const f = queue.shift()!;
        if (seen.has(f)) continue;
        seen.add(f);
        if (importsOf(f).some((i) => i.specifier === 'vscode' && !i.typeOnly)) bad.push(`${entry} reaches ${rel(f)}, which imports vscode`);
        queue.push(...(runTime.get(f) ?? []));
      }
      // The desktop worker's entry reaches its worker as a bundle of its own (dist/worker-main.js), not by import.
      if (entry !== 'desktop/workerLaunch.ts') assert.ok(seen.has(abs('core/analyze.ts')), `${entry} does reach the core`);
    }
    assert.deepEqual(bad, []);
  });

  describe('src/core imports no Node built-ins, no DOM-only APIs at run time', () => {
    const core = FILES.filter((f) => layerOf(f) === 'core');

    it('no import of a Node built-in, vscode, or anything outside src/core', () => {
      const bad: string[] = [];
      for (const f of core)
        for (const i of importsOf(f))
          if (i.specifier === 'vscode' || isNodeBuiltin(i.specifier) || (i.target && layerOf(i.target) !== 'core')) bad.push(`${rel(f)}:${i.line} → ${i.specifier}`);
      assert.deepEqual(bad, []);
    });

    it('compiles against the ES2022 library alone: no DOM or Node globals (document, window, process, Buffer, console, setTimeout, …)', function () {
      this.timeout(180_000);
      const program = ts.createProgram(core, {
        target: ts.ScriptTarget.ES2022,
        module: ts.ModuleKind.Preserve,
        moduleResolution: ts.ModuleResolutionKind.Bundler,
        lib: ['lib.es2022.d.ts'],
        types: [],
        strict: true,
        noEmit: true,
        skipLibCheck: true,
        resolveJsonModule: true,
        isolatedModules: true,
        esModuleInterop: true,
      });
      const problems = ts
        .getPreEmitDiagnostics(program)
        .filter((d) => d.file && !d.file.isDeclarationFile)
        .map((d) => `${rel(d.file!.fileName)}:${d.file!.getLineAndCharacterOfPosition(d.start ?? 0).line + 1}: ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`);
      assert.deepEqual(problems, []);
      // The check sees the files it should: every core file is in the program.
      const inProgram = new Set(program.getSourceFiles().map((s) => path.resolve(s.fileName)));
      assert.deepEqual(core.filter((f) => !inProgram.has(f)).map(rel), []);
    });
  });

  describe('src/webview never imports src/core at run time', () => {
    it('in the sources: no run-time import path from the page reaches src/core', () => {
      const runTime = importGraph(FILES, { typeOnly: false });
      const seen = new Set<string>();
      const queue = FILES.filter((f) => layerOf(f) === 'webview');
      const via = new Map<string, string>();
      while (queue.length) {
        const f = queue.shift()!;
        if (seen.has(f)) continue;
        seen.add(f);
        for (const t of runTime.get(f) ?? []) {
          if (!via.has(t)) via.set(t, f);
          queue.push(t);
        }
      }
      const bad = [...seen].filter((f) => layerOf(f) === 'core').map((f) => {
        const chain = [f];
        while (via.has(chain[0]) && layerOf(chain[0]) !== 'webview') chain.unshift(via.get(chain[0])!);
        return chain.map(rel).join(' → ');
      });
      assert.deepEqual(bad, []);
      assert.ok(seen.has(abs('shared/table.ts')), 'the walk does follow the page into src/shared');
    });

    it('in the bundle: dist/webview.js, built as scripts/build.mjs builds it, holds no file of src/core', async function () {
      this.timeout(180_000);
      const result = await esbuild.build({
        entryPoints: [path.join(SRC, 'webview', 'main.ts')],
        absWorkingDir: ROOT,
        bundle: true,
        write: false,
        metafile: true,
        platform: 'browser',
        format: 'iife',
        target: 'es2022',
        logLevel: 'silent',
      });
      const inputs = Object.keys(result.metafile.inputs).filter((p) => p.startsWith('src/'));
      assert.ok(inputs.includes('src/webview/main.ts') && inputs.includes('src/shared/table.ts'), inputs.join(', '));
      assert.deepEqual(inputs.filter((p) => !p.startsWith('src/webview/') && !p.startsWith('src/shared/')), []);
    });
  });

  it('no frontend imports analyze.ts or another frontend', () => {
    const FRONTENDS = 'core/frontends/';
    const frontendOf = (file: string): string | undefined => {
      const parts = rel(file).split('/');
      return rel(file).startsWith(FRONTENDS) && parts.length > 3 ? parts[2] : undefined;
    };
    const bad: string[] = [];
    for (const f of FILES.filter((x) => rel(x).startsWith(FRONTENDS))) {
      const mine = frontendOf(f);
      for (const i of importsOf(f)) {
        if (!i.target) continue;
        const at = `${rel(f)}:${i.line} → ${i.specifier}`;
        if (rel(i.target) === ANALYZE) bad.push(`${at}: a frontend may not import analyze.ts (the contract is core/frontend.ts)`);
        const theirs = frontendOf(i.target);
        if (theirs !== undefined && theirs !== mine) bad.push(`${at}: ${mine ? `the ${mine} frontend` : 'shared frontend code'} may not import the ${theirs} frontend`);
      }
    }
    assert.deepEqual(bad, []);
    assert.ok(new Set(FILES.map(frontendOf).filter(Boolean)).size >= 3, 'the check sees the frontends');
  });

  describe('the engine and the frontends (docs/architecture.md)', () => {
    const FRONTEND_DIRS = ['triton', 'cuda', 'wgsl'];
    const textOf = (dir: string) =>
      FILES.filter((f) => rel(f).startsWith(`core/frontends/${dir}/`)).map((f) => ({ file: rel(f), text: fs.readFileSync(f, 'utf8') }));

    it('every frontend runs its kernels through the engine driver and hands its conditions to the engine', () => {
      for (const dir of FRONTEND_DIRS) {
        const files = textOf(dir);
        assert.ok(files.length > 0, `${dir}: no files`);
        const calls = (re: RegExp) => files.filter((f) => re.test(f.text)).map((f) => f.file);
        assert.ok(calls(/\brunKernels\(/).length > 0, `${dir}: runKernels (engine/driver.ts) is not called`);
        assert.ok(calls(/\bdecide\(/).length > 0, `${dir}: decide (engine/branch.ts) is not called`);
        assert.ok(calls(/\bloopTrips\(|\bunknownTrips\(/).length > 0, `${dir}: trip counts do not come from engine/trips.ts`);
        // Policy words stay in the engine: a frontend does not pick arms or count threads itself.
        for (const f of files) assert.ok(!/\bcostlier\w*\s*=|function\s+costlier/.test(f.text), `${f.file}: decides a costlier arm itself`);
      }
    });

    // Regions are built by the engine's Recorder. These files still write a region literal
    // (kernel roots handed to the Recorder, and loop regions built before the Recorder could);
    // the list may only shrink: a file over its count, or one no longer needing its entry, fails.
    const REGION_LITERALS: Record<string, number> = {
      'core/frontends/cuda/kernel.ts': 1,
      'core/frontends/cuda/launch.ts': 1,
      'core/frontends/cuda/loops.ts': 1,
      'core/frontends/triton/dot.ts': 1,
      'core/frontends/triton/state.ts': 1,
      'core/frontends/wgsl/entry.ts': 1,
      'core/frontends/wgsl/loops.ts': 3,
    };
    it('a frontend builds no region itself beyond the named exceptions (they may only shrink)', () => {
      const found: Record<string, number> = {};
      for (const dir of FRONTEND_DIRS)
        for (const f of textOf(dir)) {
          const n = (f.text.match(/kind: '(?:kernel|loop|branch|choice)'/g) ?? []).length + (f.text.match(/\.(?:children|events)\.push\(/g) ?? []).length;
          if (n) found[f.file] = n;
        }
      for (const [file, n] of Object.entries(found)) assert.ok(n <= (REGION_LITERALS[file] ?? 0), `${file}: ${n} region literal(s) or pushes; the engine's Recorder builds regions`);
      for (const file of Object.keys(REGION_LITERALS)) assert.ok(found[file], `${file} no longer builds a region: remove it from REGION_LITERALS`);
    });
  });

  it('no import cycles in src/ (type-only imports included)', () => {
    assert.deepEqual(cycleProblems(importGraph(FILES, { typeOnly: true })), []);
  });
});
