// Bundles the CLI, the desktop extension and its analysis worker, the web extension and its
// analysis worker, and the webview with esbuild, and copies the tree-sitter grammars next to
// the bundles that load them. What ships (extensions, workers, CLI, webview) is minified: less
// to read and compile when the extension loads; the source maps keep stack traces readable.
import * as esbuild from 'esbuild';
import { copyFileSync, mkdirSync, readFileSync, existsSync, rmSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const watch = process.argv.includes('--watch');

const common = {
  bundle: true,
  sourcemap: true,
  logLevel: 'warning',
  target: 'es2022',
  define: { __VERSION__: JSON.stringify(pkg.version) },
  legalComments: 'none',
};

// web-tree-sitter's ESM build reads import.meta.url; in cjs/iife bundles it is undefined.
const importMetaUrlShim = {
  'import.meta.url': 'importMetaUrl',
};

/**
 * web-tree-sitter reaches Node's `module` and `fs/promises` through `await
 * import(…)`; in the CLI's bundle and the desktop worker's they are required
 * (`nodeRequire`, the bundle's own `require`: web-tree-sitter declares a
 * `require` of its own). A script compiled from V8's code cache
 * (src/node/codeCache.ts) cannot import dynamically.
 */
const staticNodeImports = {
  name: 'static-node-imports',
  setup(build) {
    build.onLoad({ filter: /web-tree-sitter[\\/]web-tree-sitter\.c?js$/ }, (args) => {
      let text = readFileSync(args.path, 'utf8');
      for (const name of ['module', 'fs/promises']) {
        const dynamic = `await import("${name}")`;
        if (text.split(dynamic).length !== 2) throw new Error(`${args.path}: expected one ${dynamic} (web-tree-sitter changed: look again)`);
        text = text.replace(dynamic, `nodeRequire("${name}")`);
      }
      return { contents: text, loader: 'js' };
    });
  },
};

const builds = [
  {
    ...common,
    entryPoints: [join(root, 'src/cli/main.ts')],
    outfile: join(root, 'dist/cli-main.js'),
    platform: 'node',
    format: 'cjs',
    // Names kept: test/security.test.ts follows the child_process binding by name through the bundle.
    minifyWhitespace: true,
    minifySyntax: true,
    banner: { js: 'const importMetaUrl = require("url").pathToFileURL(__filename).href;\nconst nodeRequire = require;' },
    define: { ...common.define, ...importMetaUrlShim },
    plugins: [staticNodeImports],
  },
  {
    ...common,
    // The CLI's entry: runs dist/cli-main.js with the code cache the build leaves beside it (src/cli/launch.ts).
    entryPoints: [join(root, 'src/cli/launch.ts')],
    outfile: join(root, 'dist/cli.js'),
    platform: 'node',
    format: 'cjs',
    minifyWhitespace: true,
    minifySyntax: true,
    banner: { js: '#!/usr/bin/env node' },
  },
  {
    ...common,
    entryPoints: [join(root, 'src/cli/survey/main.ts')],
    outfile: join(root, 'dist/survey.js'),
    platform: 'node',
    format: 'cjs',
    banner: { js: 'const importMetaUrl = require("url").pathToFileURL(__filename).href;' },
    define: { ...common.define, ...importMetaUrlShim },
  },
  {
    ...common,
    entryPoints: [join(root, 'test/bench/bench.ts')],
    outfile: join(root, 'dist/bench.js'),
    platform: 'node',
    format: 'cjs',
    banner: { js: 'const importMetaUrl = require("url").pathToFileURL(__filename).href;' },
    define: { ...common.define, ...importMetaUrlShim },
  },
  {
    ...common,
    entryPoints: [join(root, 'test/accuracy/accuracy.ts')],
    outfile: join(root, 'dist/accuracy.js'),
    platform: 'node',
    format: 'cjs',
  },
];
const nodeBanner = { js: 'const importMetaUrl = require("url").pathToFileURL(__filename).href;' };
// web-tree-sitter only reaches for Node built-ins when it must load its own .wasm;
// we always hand it the bytes, so these imports stay unresolved and never run.
const webExternals = ['fs', 'fs/promises', 'path', 'module', 'url', 'node:*'];
const webBanner = { js: 'const importMetaUrl = (typeof location !== "undefined" ? location.href : "file:///");' };
if (existsSync(join(root, 'src/extension/extension.ts'))) {
  builds.push(
    {
      ...common,
      // The desktop entry: the extension with its analyses in a Node worker thread.
      entryPoints: [join(root, 'src/desktop/extension.ts')],
      outfile: join(root, 'dist/extension.js'),
      platform: 'node',
      format: 'cjs',
      minify: true,
      external: ['vscode'],
      banner: nodeBanner,
      define: { ...common.define, ...importMetaUrlShim },
    },
    {
      ...common,
      // The analysis worker's entry: runs dist/worker-main.js from the code cache it keeps (src/desktop/workerLaunch.ts).
      entryPoints: [join(root, 'src/desktop/workerLaunch.ts')],
      outfile: join(root, 'dist/worker.js'),
      platform: 'node',
      format: 'cjs',
      minify: true,
    },
    {
      ...common,
      entryPoints: [join(root, 'src/desktop/worker.ts')],
      outfile: join(root, 'dist/worker-main.js'),
      platform: 'node',
      format: 'cjs',
      minify: true,
      // Compiled through vm.Script like the CLI's bundle: no dynamic import().
      banner: { js: `${nodeBanner.js}\nconst nodeRequire = require;` },
      define: { ...common.define, ...importMetaUrlShim },
      plugins: [staticNodeImports],
    },
    {
      ...common,
      entryPoints: [join(root, 'src/extension/extension.ts')],
      outfile: join(root, 'dist/web/extension.js'),
      platform: 'browser',
      format: 'cjs',
      minify: true,
      external: ['vscode', ...webExternals],
      banner: webBanner,
      define: { ...common.define, ...importMetaUrlShim, 'process.env.NODE_ENV': '"production"' },
    },
    {
      ...common,
      // A classic worker script: VS Code's web extension host starts it through importScripts.
      entryPoints: [join(root, 'src/extension/worker.ts')],
      outfile: join(root, 'dist/web/worker.js'),
      platform: 'browser',
      format: 'iife',
      minify: true,
      external: webExternals,
      banner: webBanner,
      define: { ...common.define, ...importMetaUrlShim, 'process.env.NODE_ENV': '"production"' },
    },
  );
}
if (existsSync(join(root, 'src/webview/main.ts'))) {
  builds.push({
    ...common,
    entryPoints: [join(root, 'src/webview/main.ts')],
    outfile: join(root, 'dist/webview.js'),
    platform: 'browser',
    format: 'iife',
    minify: true,
  });
}

mkdirSync(join(root, 'dist'), { recursive: true });
// A code cache is made for one bundle (src/cli/launch.ts checks): none is left beside a bundle built anew.
rmSync(join(root, 'dist', 'cli-main.cache'), { force: true });
for (const [from, to] of [
  ['web-tree-sitter/web-tree-sitter.wasm', 'web-tree-sitter.wasm'],
  ['tree-sitter-python/tree-sitter-python.wasm', 'tree-sitter-python.wasm'],
  ['tree-sitter-cuda/tree-sitter-cuda.wasm', 'tree-sitter-cuda.wasm'],
]) {
  const src = join(root, 'node_modules', from);
  copyFileSync(src, join(root, 'dist', to));
}

if (watch) {
  for (const b of builds) (await esbuild.context(b)).watch();
} else {
  await Promise.all(builds.map((b) => esbuild.build(b)));
  writeCodeCache();
}

/**
 * The CLI's code cache (src/cli/launch.ts): one run over the test fixtures
 * and the examples (more than 256 KB, so V8's flags stay the defaults a run
 * starts with: see src/cli/inputs.ts `preferBaselineWasm`), in one thread,
 * writes the bytecode its functions compiled to. Without the fixtures (a
 * package built elsewhere) or on any failure there is no cache, and the CLI
 * compiles as it would without one.
 */
function writeCodeCache() {
  const cache = join(root, 'dist', 'cli-main.cache'); // removed before the bundles were built
  const inputs = ['test/fixtures', 'examples'].map((d) => join(root, d)).filter((d) => existsSync(d));
  if (inputs.length < 2) return;
  const run = spawnSync(process.execPath, [join(root, 'dist', 'cli.js'), 'analyze', ...inputs, '--jobs', '1', '--format', 'json'], {
    env: { ...process.env, ROOFLINE_LENS_CODE_CACHE_OUT: cache },
    stdio: 'ignore',
    timeout: 120_000,
  });
  if (run.status !== 0) {
    rmSync(cache, { force: true });
    console.warn(`build: no CLI code cache (the warm-up run ended with ${run.status ?? run.signal})`);
  } else if (!existsSync(cache)) console.warn('build: no CLI code cache (the warm-up run could not write it)');
}
void require;
