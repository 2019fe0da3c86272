/**
 * roofline-lens: the command line over the core.
 *
 *   roofline-lens analyze FILE|DIR... [--format text|json|markdown] [--gpu ID]
 *                 [--set NAME=VALUE]... [--dtype NAME=TYPE]... [--grid X[,Y[,Z]]]
 *   roofline-lens gpus [--format text|json]
 *
 * Exit codes: 0 success (also when some files had diagnostics), 2 usage error.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { analyzeSource, languageOf, makeReport, type BindingValue } from '../core/analyze';
import { parseBindingValue } from '../core/bindings';
import { parseDtype } from '../core/frontends/common';
import { DEFAULT_GPU_ID, findGpu, GPU_CATALOG } from '../core/gpus/catalog';
import type { Dtype, GpuSpec } from '../core/gpus/types';
import { initParsers, type WasmName } from '../core/parsers';
import { renderMarkdown, renderText } from '../core/report/render';
import { si } from '../core/report/format';
import type { FileReport } from '../core/report/types';
import { diag } from '../core/messages';

declare const __VERSION__: string;

const USAGE = `usage:
  roofline-lens analyze FILE|DIR... [--format text|json|markdown] [--gpu ID]
                [--set NAME=VALUE]... [--dtype NAME=TYPE]... [--grid X[,Y[,Z]]]
  roofline-lens gpus [--format text|json]

  --set NAME=VALUE   bind a symbol (constexpr, #define, argument, blockDim.x, tl.num_programs(0), ...)
  --dtype NAME=TYPE  element type of a pointer / template type / binding (fp32, fp16, bf16, fp8e5m2, ...)
  --grid X,Y,Z       number of units (Triton grid, CUDA gridDim, WGSL dispatch)
  --gpu ID           GPU to use (default ${DEFAULT_GPU_ID}; see 'roofline-lens gpus')`;

class UsageError extends Error {}

interface Args {
  command: string;
  files: string[];
  format: 'text' | 'json' | 'markdown';
  gpu: GpuSpec;
  set: Record<string, BindingValue>;
  dtypes: Record<string, Dtype>;
  grid?: number[];
}

function parseArgs(argv: string[]): Args {
  const [command, ...rest] = argv;
  if (!command || command === '--help' || command === '-h' || command === 'help') throw new UsageError('');
  if (command !== 'analyze' && command !== 'gpus') throw new UsageError(`unknown command '${command}'`);
  const a: Args = { command, files: [], format: 'text', gpu: findGpu(DEFAULT_GPU_ID)!, set: {}, dtypes: {} };
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i];
    const takeValue = (): string => {
      const eq = arg.indexOf('=');
      if (arg.startsWith('--') && eq > 0 && ['--format', '--gpu', '--grid'].includes(arg.slice(0, eq))) return arg.slice(eq + 1);
      const v = rest[++i];
      if (v === undefined) throw new UsageError(`${arg} needs a value`);
      return v;
    };
    const flag = arg.includes('=') && /^--(format|gpu|grid)=/.test(arg) ? arg.slice(0, arg.indexOf('=')) : arg;
    switch (flag) {
      case '--format': {
        const f = takeValue();
        if (f !== 'text' && f !== 'json' && f !== 'markdown' && f !== 'md') throw new UsageError(`--format must be text, json or markdown (got '${f}')`);
        a.format = f === 'md' ? 'markdown' : f;
        break;
      }
      case '--json':
        a.format = 'json';
        break;
      case '--gpu': {
        const id = takeValue();
        const g = findGpu(id);
        if (!g) throw new UsageError(`unknown GPU '${id}'; known: ${GPU_CATALOG.gpus.map((x) => x.id).join(', ')}`);
        a.gpu = g;
        break;
      }
      case '--set': {
        const kv = takeValue();
        const eq = kv.indexOf('=');
        if (eq <= 0) throw new UsageError(`--set takes NAME=VALUE (got '${kv}')`);
        a.set[kv.slice(0, eq).trim()] = parseBindingValue(kv.slice(eq + 1));
        break;
      }
      case '--dtype': {
        const kv = takeValue();
        const eq = kv.indexOf('=');
        if (eq <= 0) throw new UsageError(`--dtype takes NAME=TYPE (got '${kv}')`);
        const d = parseDtype(kv.slice(eq + 1));
        if (!d) throw new UsageError(`--dtype: unknown type '${kv.slice(eq + 1)}' (use fp64, fp32, tf32, fp16, bf16, fp8e4m3, fp8e5m2, int8, int32)`);
        a.dtypes[kv.slice(0, eq).trim()] = d;
        break;
      }
      case '--grid': {
        const g = takeValue()
          .split(/[,x ]/)
          .filter(Boolean)
          .map((s) => Number(s));
        if (g.length < 1 || g.length > 3 || g.some((v) => !Number.isInteger(v) || v < 1)) throw new UsageError(`--grid takes 1 to 3 positive integers, e.g. --grid 128,64`);
        a.grid = g;
        break;
      }
      default:
        if (arg.startsWith('-')) throw new UsageError(`unknown option '${arg}'`);
        a.files.push(arg);
    }
  }
  if (a.command === 'analyze' && a.files.length === 0) throw new UsageError('analyze needs at least one FILE or DIR');
  return a;
}

const SKIP_DIRS = new Set(['node_modules', '.git', 'dist', 'out', '__pycache__', '.venv', 'venv']);

/** Expands directories into the kernel files below them (sorted, deterministic). */
function expand(inputs: string[]): { files: string[]; missing: string[] } {
  const files: string[] = [];
  const missing: string[] = [];
  const walk = (dir: string, depth: number): void => {
    if (depth > 20) return;
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries.sort((x, y) => x.name.localeCompare(y.name))) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) {
        if (!SKIP_DIRS.has(e.name) && !e.name.startsWith('.')) walk(p, depth + 1);
      } else if (e.isFile() && languageOf(p)) files.push(p);
    }
  };
  for (const i of inputs) {
    let st: fs.Stats;
    try {
      st = fs.statSync(i);
    } catch {
      missing.push(i);
      continue;
    }
    if (st.isDirectory()) walk(i, 0);
    else files.push(i);
  }
  return { files, missing };
}

/** Does a file found by walking a directory hold kernels of its language worth reporting? */
function worthReporting(file: string, src: string): boolean {
  const lang = languageOf(file);
  if (lang === 'triton') return src.includes('triton');
  if (lang === 'wgsl' && !file.endsWith('.wgsl')) return src.includes('@compute');
  return true;
}

function wasmLoader(): (name: WasmName) => Promise<Uint8Array> {
  const here = typeof __dirname === 'string' ? __dirname : process.cwd();
  return async (name) => {
    const candidates = [
      path.join(here, name),
      path.join(here, 'wasm', name),
      path.join(here, '..', 'dist', name),
      path.join(here, '..', '..', 'dist', name),
    ];
    for (const c of candidates) if (fs.existsSync(c)) return fs.readFileSync(c);
    throw new Error(`cannot find ${name} next to the CLI (looked in ${candidates.join(', ')}); run 'npm run build'`);
  };
}

function gpusText(): string {
  const rows = GPU_CATALOG.gpus.map((g) => {
    const t = Object.entries(g.peaks.tensor)
      .map(([d, v]) => `${d} ${si(v, 'FLOP/s')}`)
      .join(', ');
    const v = Object.entries(g.peaks.vector)
      .map(([d, x]) => `${d} ${si(x, 'FLOP/s')}`)
      .join(', ');
    return `${g.id.padEnd(16)} ${g.name.padEnd(22)} DRAM ${si(g.memoryBandwidth, 'B/s').padEnd(10)} L2 ${g.l2Bandwidth ? si(g.l2Bandwidth, 'B/s') : 'n/a'}\n${' '.repeat(17)}tensor: ${t || '—'}\n${' '.repeat(17)}vector: ${v || '—'}`;
  });
  return `GPU catalogue version ${GPU_CATALOG.version} (dense peaks; sources: roofline-lens gpus --format json)\n\n${rows.join('\n')}\n`;
}

export async function main(argv: string[], out: (s: string) => void = (s) => process.stdout.write(s), err: (s: string) => void = (s) => process.stderr.write(s)): Promise<number> {
  let args: Args;
  if (argv[0] === '--version' || argv[0] === '-V') {
    out(`${typeof __VERSION__ === 'string' ? __VERSION__ : 'dev'}\n`);
    return 0;
  }
  try {
    args = parseArgs(argv);
  } catch (e) {
    if (e instanceof UsageError) {
      if (e.message) err(`roofline-lens: ${e.message}\n`);
      err(USAGE + '\n');
      return argv.length === 0 || ['--help', '-h', 'help'].includes(argv[0]) ? (argv.length === 0 ? 2 : 0) : 2;
    }
    throw e;
  }
  if (args.command === 'gpus') {
    out(args.format === 'json' ? JSON.stringify(GPU_CATALOG, null, 2) + '\n' : gpusText());
    return 0;
  }
  const parsers = await initParsers(wasmLoader());
  const { files, missing } = expand(args.files);
  const reports: FileReport[] = [];
  for (const m of missing)
    reports.push({ path: m, language: languageOf(m) ?? 'triton', diagnostics: [diag('internal', 1, 'error', `cannot read ${m}: no such file or directory`)], kernels: [] });
  const explicit = new Set(args.files.map((f) => path.normalize(f)));
  for (const file of files) {
    let src: string;
    try {
      const buf = fs.readFileSync(file);
      src = new TextDecoder('utf-8', { fatal: false }).decode(buf);
    } catch (e) {
      reports.push({ path: file, language: languageOf(file) ?? 'triton', diagnostics: [diag('internal', 1, 'error', `cannot read ${file}: ${(e as Error).message}`)], kernels: [] });
      continue;
    }
    if (!explicit.has(path.normalize(file)) && !worthReporting(file, src)) continue;
    reports.push(
      analyzeSource(src, parsers, { gpu: args.gpu, path: file, set: args.set, dtypes: args.dtypes, grid: args.grid, language: languageOf(file) }),
    );
  }
  const report = makeReport(args.gpu, reports);
  if (args.format === 'json') out(JSON.stringify(report, null, 2) + '\n');
  else if (args.format === 'markdown') out(renderMarkdown(report));
  else out(renderText(report));
  return 0;
}

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (e) => {
      process.stderr.write(`roofline-lens: internal error: ${(e as Error)?.stack ?? e}\n`);
      process.exitCode = 1;
    },
  );
}
