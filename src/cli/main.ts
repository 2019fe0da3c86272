/**
 * roofline-lens: the command line over the core.
 *
 *   roofline-lens analyze FILE|DIR... [--format text|json|markdown|sarif] [--gpu ID[,ID...]]
 *   roofline-lens diff [BASE] [HEAD] [PATH...] [--format text|json|markdown] [--fail-on ...]
 *   roofline-lens gpus [--format text|json] [--gpu-file FILE]
 *
 * Exit codes: 0 success (also when some files had diagnostics), 1 a `diff
 * --fail-on` condition met, 2 usage error, not a git repository, unknown
 * revision or bad --gpu-file, 3 internal error.
 */
import { DEFAULT_GPU_ID } from '../core/gpus/catalog';
import { CliError, last, parseOptions, readFormat, usageError } from './args';
import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import { analyzeCommand, VERSION, type AnalysisSettings } from './analyze';
import { ANALYZE_WORKER_ROLE, serveAnalyzeWorker, setWorkerScript } from './parallel';
import { diffCommand } from './diff';
import { gpusJson, gpusText, loadGpuFiles } from './gpus';
import { lazyParsers } from './inputs';

const USAGE = `usage:
  roofline-lens analyze FILE|DIR... [--format text|json|markdown|sarif] [--gpu ID[,ID...]]
                [--gpu-file FILE] [--set NAME=VALUE]... [--dtype NAME=TYPE]... [--grid X[,Y[,Z]]] [--budget-ms MS]
                [--sarif-level memory=warning,compute=note,unknown=note] [--root DIR] [--jobs N]
                [--profile NCU_CSV|PROTON_JSON [--per-launch] [--match MEASURED=FILE:KERNEL]...]
  roofline-lens diff [BASE] [HEAD] [PATH...] [-C|--repo DIR] [--format text|json|markdown]
                [--fail-on bound-regression] [--fail-on ai-drop=PCT] [--gpu ...] [--set ...]
  roofline-lens gpus [--format text|json] [--gpu-file FILE]

  --set NAME=VALUE   bind a symbol (constexpr, #define, argument, blockDim.x, tl.num_programs(0), ...)
  --dtype NAME=TYPE  element type of a pointer / template type / binding (fp32, fp16, bf16, fp8e5m2, ...),
                     or the texel format of a WGSL texture (rgba8unorm, rgba16float, r32float, ...)
  --grid X,Y,Z       number of units (Triton grid, CUDA gridDim, WGSL dispatch)
  --gpu ID[,ID...]   GPUs to use (default ${DEFAULT_GPU_ID}; see 'roofline-lens gpus'); several add a column each
  --gpu-file FILE    custom GPUs: a JSON array (or {"gpus": [...]}) like the rooflineLens.customGpus setting
  --budget-ms MS     a wall-clock limit per file: a kernel still running after MS is listed without numbers
                     (default: none; the analysis is bounded by step counts, so its output does not depend
                     on the machine's load)
  --jobs N           worker threads when analysing 8 files or more (default: the cores, at most 4, on 4 cores or more; else 1)
  --root DIR         paths in Markdown and SARIF are relative to DIR (default: the git work tree, else .)
  --profile FILE     measured results (ncu --csv --page raw, or Triton Proton JSON) beside the estimates,
                     each under its own GPU's roofs, launches named 'kernel [M=…]' estimated for those sizes;
                     --per-launch keeps launches apart, --match pins a measured name to a source kernel
  diff: BASE defaults to the merge base with origin/HEAD (else main, else master), HEAD to the
        working tree; --fail-on exits 1 when a kernel turns memory-bound on a GPU or its AI drops
        by more than PCT %.`;

const HELP = new Set(['--help', '-h', 'help']);

function gpusCommand(argv: string[], out: (s: string) => void): number {
  const p = parseOptions(argv, { valued: { '--format': ['-f'], '--gpu-file': [] }, flags: { '--json': [] } });
  if (p.positional.length || p.rest.length) throw usageError(`gpus takes no arguments (got '${[...p.positional, ...p.rest][0]}')`);
  const format = p.options.has('--json') ? 'json' : readFormat(last(p, '--format'), ['text', 'json'] as const, 'text');
  const custom = loadGpuFiles(p.options.get('--gpu-file') ?? []);
  out(format === 'json' ? gpusJson(custom) : gpusText(custom));
  return 0;
}

async function run(argv: string[], out: (s: string) => void): Promise<number> {
  const [command, ...rest] = argv;
  // Tree-sitter and each grammar load only when a file needs them.
  const parsers = lazyParsers();
  if (command === 'analyze') return analyzeCommand(rest, parsers, out);
  if (command === 'diff') return diffCommand(rest, parsers, out);
  if (command === 'gpus') return gpusCommand(rest, out);
  throw usageError(`unknown command '${command}'`);
}

export async function main(argv: string[], out: (s: string) => void = (s) => process.stdout.write(s), err: (s: string) => void = (s) => process.stderr.write(s)): Promise<number> {
  if (argv[0] === '--version' || argv[0] === '-V') {
    out(`${VERSION}\n`);
    return 0;
  }
  const options = argv.includes('--') ? argv.slice(0, argv.indexOf('--')) : argv;
  if (argv.length === 0 || HELP.has(argv[0]) || options.slice(1).some((a) => a === '--help' || a === '-h')) {
    err(USAGE + '\n');
    return argv.length === 0 ? 2 : 0;
  }
  try {
    return await run(argv, out);
  } catch (e) {
    if (!(e instanceof CliError)) throw e;
    err(`roofline-lens: ${e.message}\n`);
    if (e.showUsage) err(USAGE + '\n');
    return 2;
  }
}

if (!isMainThread && (workerData as { role?: string } | null)?.role === ANALYZE_WORKER_ROLE) {
  serveAnalyzeWorker(parentPort!, (workerData as { settings: AnalysisSettings }).settings);
} else if (require.main === module) {
  // Workers for many files run this same script (src/cli/parallel.ts).
  setWorkerScript(__filename);
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (e) => {
      process.stderr.write(`roofline-lens: internal error: ${(e as Error)?.stack ?? e}\n`);
      process.exitCode = 3;
    },
  );
}
