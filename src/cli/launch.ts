/**
 * The CLI's entry point (dist/cli.js): runs the CLI itself (dist/cli-main.js)
 * compiled with V8's code cache when the build left one beside it
 * (dist/cli-main.cache, written by scripts/build.mjs after analysing the
 * test fixtures and examples once, `ROOFLINE_LENS_CODE_CACHE_OUT`). A run
 * then starts with the bytecode of the functions an analysis uses instead of
 * compiling them again: ~40–50 ms of a run of ten tutorials (docs/performance.md).
 *
 * The cache is an optimisation only: V8 checks it against its version, its
 * flags and the source, and a cache it rejects (another Node, a rebuilt
 * bundle) or none at all leaves the bundle compiled as usual. What runs is
 * always our own bundle, never text from the user.
 */
import * as fs from 'node:fs';
import { Module } from 'node:module';
import * as path from 'node:path';
import * as vm from 'node:vm';

const MAIN = path.join(__dirname, 'cli-main.js');
const CACHE = path.join(__dirname, 'cli-main.cache');

/** Where a run writes the code cache of its bundle as it ends (the build's warm-up run). */
const CACHE_OUT = 'ROOFLINE_LENS_CODE_CACHE_OUT';

function readCache(): Buffer | undefined {
  try {
    return fs.readFileSync(CACHE);
  } catch {
    return undefined; // none built: the bundle is compiled as usual
  }
}

function launch(): void {
  const script = new vm.Script(Module.wrap(fs.readFileSync(MAIN, 'utf8')), { filename: MAIN, cachedData: readCache() });
  if (process.env.ROOFLINE_LENS_TRACE_CODE_CACHE) process.stderr.write(`roofline-lens: code cache ${script.cachedDataRejected === false ? 'used' : 'not used'}\n`);
  const out = process.env[CACHE_OUT];
  if (out) process.once('exit', () => fs.writeFileSync(out, script.createCachedData()));
  // The bundle runs as the main module, as `node dist/cli-main.js` would run it.
  const main = new Module(MAIN, module);
  main.filename = MAIN;
  main.paths = module.paths;
  const load = ((id: string) => main.require(id)) as NodeJS.Require;
  Object.assign(load, { main, cache: require.cache, resolve: require.resolve, extensions: require.extensions });
  (script.runInThisContext() as (...args: unknown[]) => void).call(main.exports, main.exports, load, main, MAIN, path.dirname(MAIN));
}

launch();
