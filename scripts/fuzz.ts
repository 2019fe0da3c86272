/**
 * `npm run fuzz [-- options]`: the mutation fuzzer, outside the test suite.
 *
 *   --count N        inputs in all, shared by the languages (default 3000)
 *   --seed S         run seed (default 1; the CI batch uses its own fixed seed)
 *   --lang L[,L…]    triton, cuda, wgsl (default all)
 *   --budget MS      analysis budget per input (default 400)
 *   --truncate-all   instead of mutating, analyse every prefix of every seed
 *   --stride N       with --truncate-all, every N-th prefix (default 1)
 *   --workers N      worker threads (default: one per core)
 *   --watchdog MS    an input still running after MS is a hang (default 10000)
 *   --no-regressions do not seed from test/fixtures/regressions (their known
 *                    bugs would be found again and again)
 *   --out DIR        where minimised findings go (default: a temp folder)
 *   --no-minimise    write findings as found
 *
 * Prints throughput per language and one line per distinct bug, writes each
 * bug's minimised input as a fixture under DIR/<lang>/, and exits 1 when
 * anything was found.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadSeeds } from '../src/fuzz/corpus';
import { fixtureText, groupBySignature, type Bug } from '../src/fuzz/findings';
import type { FuzzLanguage } from '../src/fuzz/hostile';
import { minimise } from '../src/fuzz/minimise';
import { Replayer, runInWorkers } from '../src/fuzz/pool';
import { DEFAULT_CONFIG, prefixUnits, sessionUnits, type FuzzConfig, type FuzzInput, type FuzzRun } from '../src/fuzz/run';
import { readSpec } from '../test/check';

interface CliOptions {
  cfg: FuzzConfig;
  truncateAll: boolean;
  stride: number;
  out: string;
  minimise: boolean;
  workers: number;
  watchdogMs: number;
  regressions: boolean;
}

function parseArgs(argv: string[]): CliOptions {
  const o: CliOptions = {
    cfg: { ...DEFAULT_CONFIG, count: 3000 },
    truncateAll: false,
    stride: 1,
    out: path.join(os.tmpdir(), 'roofline-fuzz'),
    minimise: true,
    workers: os.availableParallelism(),
    watchdogMs: 10_000,
    regressions: true,
  };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    const value = (): string => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${flag} needs a value`);
      return v;
    };
    if (flag === '--count') o.cfg.count = positive(flag, value());
    else if (flag === '--seed') o.cfg.seed = positive(flag, value());
    else if (flag === '--budget') o.cfg.budgetMs = positive(flag, value());
    else if (flag === '--lang') o.cfg.langs = languages(value());
    else if (flag === '--stride') o.stride = positive(flag, value());
    else if (flag === '--out') o.out = value();
    else if (flag === '--workers') o.workers = Math.max(1, positive(flag, value()));
    else if (flag === '--watchdog') o.watchdogMs = positive(flag, value());
    else if (flag === '--truncate-all') o.truncateAll = true;
    else if (flag === '--no-minimise') o.minimise = false;
    else if (flag === '--no-regressions') o.regressions = false;
    else throw new Error(`unknown option ${flag}`);
  }
  return o;
}

function positive(flag: string, v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${flag}: expected a whole number, got ${v}`);
  return n;
}

function languages(v: string): FuzzLanguage[] {
  const all: FuzzLanguage[] = ['triton', 'cuda', 'wgsl'];
  const out = v.split(',').map((s) => s.trim());
  for (const l of out) if (!all.includes(l as FuzzLanguage)) throw new Error(`--lang: unknown language ${l}`);
  return out as FuzzLanguage[];
}

function printStats(run: FuzzRun, wallMs: number): void {
  let total = 0;
  for (const [lang, s] of Object.entries(run.stats)) {
    total += s.inputs;
    const rate = s.ms > 0 ? (s.inputs * 1000) / s.ms : 0;
    console.log(`${lang.padEnd(7)} ${String(s.inputs).padStart(7)} inputs  ${rate.toFixed(0).padStart(5)} inputs/s  mean ${(s.ms / Math.max(1, s.inputs)).toFixed(1)} ms  max ${s.maxMs.toFixed(0)} ms (${s.slowest})`);
  }
  console.log(`${total} inputs in ${(wallMs / 1000).toFixed(1)} s`);
}

/** Minimises a bug's input (same signature, analysed cold in a worker) and writes it as a fixture. */
async function writeBug(replayer: Replayer, bug: Bug, o: CliOptions): Promise<string> {
  const { input } = bug.first;
  const fails = async (source: string): Promise<boolean> => (await replayer.findings({ ...input, source })).some((f) => f.signature === bug.signature);
  const reproducible = bug.finding.kind !== 'cache-mismatch' && (await fails(input.source));
  const source = o.minimise && reproducible ? await minimise(input.source, fails, { maxTrials: 3000, maxMs: 90_000 }) : input.source;
  const dir = path.join(o.out, input.lang);
  fs.mkdirSync(dir, { recursive: true });
  const ext = path.extname(input.path);
  const file = path.join(dir, `${bug.finding.kind}-${Math.abs(hash(bug.key)).toString(36)}${ext}`);
  fs.writeFileSync(file, fixtureText(bug, source, o.cfg.seed));
  if (input.previous !== undefined) fs.writeFileSync(`${file}.previous${ext}`, input.previous);
  return reproducible ? file : `${file} (does not reproduce cold: depends on the previous version, saved next to it)`;
}

function hash(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (Math.imul(h, 31) + s.charCodeAt(i)) | 0;
  return h;
}

/**
 * Progress on stderr, and each input saved to DIR/current-<lang>.<ext> (with
 * its options in current-<lang>.json) as it starts: if the whole process
 * dies, those files are the reproducers.
 */
function progress(out: string): (input: FuzzInput) => void {
  fs.mkdirSync(out, { recursive: true });
  let seen = 0;
  return (input) => {
    const base = path.join(out, `current-${input.lang}`);
    fs.writeFileSync(`${base}${path.extname(input.path)}`, input.source);
    fs.writeFileSync(`${base}.json`, JSON.stringify({ id: input.id, seed: input.seed, ops: input.ops, path: input.path, options: { ...input.options, gpu: input.options.gpu.id } }));
    if (++seen % 500 === 0) process.stderr.write(`  ${seen} inputs…\n`);
  };
}

async function main(): Promise<void> {
  const o = parseArgs(process.argv.slice(2));
  const fixtures = path.join(__dirname, '..', 'test', 'fixtures');
  const seeds = loadSeeds(fixtures, o.cfg.langs, (t) => readSpec(t).args).filter((s) => o.regressions || !s.name.startsWith('regressions/'));
  console.log(`${seeds.length} seeds; seed ${o.cfg.seed}; budget ${o.cfg.budgetMs} ms per input`);
  const units = o.truncateAll ? prefixUnits(seeds, o.cfg, o.stride) : sessionUnits(o.cfg);
  const t0 = Date.now();
  const run = await runInWorkers(seeds, o.cfg, units, { workers: o.workers, watchdogMs: o.watchdogMs, heapMb: 2048, onStart: progress(o.out) });
  printStats(run, Date.now() - t0);
  const bugs = groupBySignature(run.outcomes);
  if (bugs.length === 0) {
    console.log('no findings');
    return;
  }
  console.log(`${bugs.length} distinct finding(s):`);
  const replayer = new Replayer(o.cfg, { watchdogMs: Math.min(o.watchdogMs, 5000), heapMb: 2048 });
  for (const bug of bugs) {
    console.log(`- ${bug.key} (${bug.hits} hit(s)) e.g. ${bug.first.input.id}: ${bug.finding.detail.slice(0, 200)}`);
    console.log(`  → ${await writeBug(replayer, bug, o)}`);
  }
  replayer.close();
  process.exitCode = 1;
}

main().catch((e) => {
  console.error(e instanceof Error ? e.message : e);
  process.exitCode = 2;
});
