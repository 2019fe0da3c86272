/**
 * The CLI's entry point (dist/cli.js): runs the CLI itself (dist/cli-main.js)
 * compiled with V8's code cache when the build left one beside it
 * (dist/cli-main.cache, written by scripts/build.mjs after analysing the
 * test fixtures and examples once, `ROOFLINE_LENS_CODE_CACHE_OUT`). A run
 * then starts with the bytecode of the functions an analysis uses instead of
 * compiling them again: ~40–50 ms of a run of ten tutorials (docs/performance.md).
 *
 * The cache is an optimisation only. It starts with the SHA-256 of the
 * bundle it was made from (V8 checks a cache against its version, its flags
 * and the source's length only: a rebuilt bundle of the same length would
 * run another bundle's bytecode), and a cache for another bundle, one V8
 * rejects (another Node) or none at all leaves the bundle compiled as
 * usual. What runs is always our own bundle, never text from the user.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import { Module } from 'node:module';
import * as path from 'node:path';
import * as vm from 'node:vm';

const MAIN = path.join(__dirname, 'cli-main.js');
const CACHE = path.join(__dirname, 'cli-main.cache');

/** Where a run writes the code cache of its bundle as it ends (the build's warm-up run). */
const CACHE_OUT = 'ROOFLINE_LENS_CODE_CACHE_OUT';

/** Bytes of the bundle's digest in front of V8's data. */
const DIGEST = 32;

/** V8's data of the cache made from `digest`'s bundle, if that is the one there. */
function readCache(digest: Buffer): Buffer | undefined {
  let data: Buffer;
  try {
    data = fs.readFileSync(CACHE);
  } catch {
    return undefined; // none built: the bundle is compiled as usual
  }
  return data.length > DIGEST && data.subarray(0, DIGEST).equals(digest) ? data.subarray(DIGEST) : undefined;
}

function launch(): void {
  const source = fs.readFileSync(MAIN, 'utf8');
  const digest = createHash('sha256').update(source).digest();
  const script = new vm.Script(Module.wrap(source), { filename: MAIN, cachedData: readCache(digest) });
  if (process.env.ROOFLINE_LENS_TRACE_CODE_CACHE) process.stderr.write(`roofline-lens: code cache ${script.cachedDataRejected === false ? 'used' : 'not used'}\n`);
  const out = process.env[CACHE_OUT];
  if (out) process.once('exit', () => fs.writeFileSync(out, Buffer.concat([digest, script.createCachedData()])));
  // The bundle runs as the main module, as `node dist/cli-main.js` would run it.
  const main = new Module(MAIN, module);
  main.filename = MAIN;
  main.paths = module.paths;
  const load = ((id: string) => main.require(id)) as NodeJS.Require;
  Object.assign(load, { main, cache: require.cache, resolve: require.resolve, extensions: require.extensions });
  (script.runInThisContext() as (...args: unknown[]) => void).call(main.exports, main.exports, load, main, MAIN, path.dirname(MAIN));
}

launch();
