/**
 * The CLI's entry point (dist/cli.js): runs the CLI itself (dist/cli-main.js)
 * compiled with V8's code cache when the build left one beside it
 * (dist/cli-main.cache, written by scripts/build.mjs after analysing the
 * test fixtures and examples once, `ROOFLINE_LENS_CODE_CACHE_OUT`). A run
 * then starts with the bytecode of the functions an analysis uses instead of
 * compiling them again: ~40–50 ms of a run of ten tutorials (docs/performance.md).
 * How a cache is checked and made: src/node/codeCache.ts.
 */
import * as path from 'node:path';
import { compileBundle } from '../node/codeCache';

const MAIN = path.join(__dirname, 'cli-main.js');
const CACHE = path.join(__dirname, 'cli-main.cache');

/** Where a run writes the code cache of its bundle as it ends (the build's warm-up run). */
const CACHE_OUT = 'ROOFLINE_LENS_CODE_CACHE_OUT';

const bundle = compileBundle(MAIN, CACHE);
if (process.env.ROOFLINE_LENS_TRACE_CODE_CACHE) process.stderr.write(`roofline-lens: code cache ${bundle.state === 'used' ? 'used' : 'not used'}\n`);
const out = process.env[CACHE_OUT];
if (out) process.once('exit', () => bundle.save(out));
bundle.run(module);
