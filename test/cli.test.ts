/**
 * The CLI end to end (in process): COUNTING.md's JSON schema, the text and
 * Markdown formats, usage errors (exit 2), unreadable files (a diagnostic, the
 * others go on).
 */
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { main } from '../src/cli/main';

const FIX = path.join(__dirname, 'fixtures', 'triton');

async function run(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(args, (s) => (out += s), (s) => (err += s));
  return { code, out, err };
}

function isNumOrNull(x: unknown): boolean {
  return x === null || (typeof x === 'number' && Number.isFinite(x));
}

describe('CLI', () => {
  it('JSON follows the schema of COUNTING.md', async () => {
    const { code, out } = await run(['analyze', path.join(FIX, 'matmul_autotune.py'), path.join(FIX, 'softmax.py'), '--format', 'json']);
    assert.equal(code, 0);
    const doc = JSON.parse(out);
    assert.equal(doc.schemaVersion, 1);
    for (const k of ['id', 'name', 'memoryBandwidth', 'l2Bandwidth', 'peaks']) assert.ok(k in doc.gpu, `gpu.${k}`);
    assert.ok(doc.gpu.peaks.tensor && doc.gpu.peaks.vector);
    assert.equal(doc.files.length, 2);
    for (const f of doc.files) {
      assert.ok(['triton', 'cuda', 'wgsl'].includes(f.language));
      assert.ok(Array.isArray(f.diagnostics));
      for (const d of f.diagnostics) assert.ok(typeof d.line === 'number' && typeof d.severity === 'string' && typeof d.message === 'string');
      for (const k of f.kernels) {
        assert.equal(typeof k.name, 'string');
        assert.ok(Number.isInteger(k.line) && k.line >= 1);
        assert.ok(['program', 'block', 'workgroup'].includes(k.unit));
        assert.equal(typeof k.bindings, 'object');
        assert.ok(Array.isArray(k.unbound));
        for (const key of ['flops', 'loadBytes', 'storeBytes']) assert.ok(isNumOrNull(k.perUnit[key]), `perUnit.${key}`);
        assert.ok(isNumOrNull(k.units));
        assert.equal(typeof k.computeDtype, 'string');
        assert.ok(isNumOrNull(k.arithmeticIntensity) && isNumOrNull(k.compulsoryIntensity) && isNumOrNull(k.attainableFlops));
        assert.ok(typeof k.ridgePoint === 'number');
        assert.ok(['memory', 'compute', 'unknown'].includes(k.bound));
        assert.ok(k.boundLevel === null || ['dram', 'l2'].includes(k.boundLevel));
        for (const key of ['flops', 'loadBytes', 'storeBytes']) assert.equal(typeof k.formulas[key], 'string');
        for (const r of k.regions) for (const key of ['line', 'kind', 'trips', 'flops', 'loadBytes', 'storeBytes']) assert.ok(key in r, `regions[].${key}`);
      }
    }
    const mm = doc.files[0].kernels[0];
    assert.equal(mm.name, 'matmul_kernel');
    assert.equal(mm.bindings.BLOCK_M, 128);
  });

  it('--gpu, --set, --dtype and --grid change the answer', async () => {
    const base = JSON.parse((await run(['analyze', path.join(FIX, 'softmax.py'), '--format', 'json'])).out).files[0].kernels[0];
    const { out } = await run(['analyze', path.join(FIX, 'softmax.py'), '--format', 'json', '--gpu', 'a100-sxm-80gb', '--set', 'n_cols=512', '--set', 'BLOCK_SIZE=512', '--dtype', 'input_ptr=fp16', '--grid', '100']);
    const doc = JSON.parse(out);
    const k = doc.files[0].kernels[0];
    assert.equal(doc.gpu.id, 'a100-sxm-80gb');
    assert.equal(k.units, 100);
    assert.equal(k.perUnit.loadBytes, 512 * 2);
    assert.equal(k.perUnit.storeBytes, 512 * 4);
    assert.notEqual(k.ridgePoint, base.ridgePoint);
    assert.equal(k.bindingSources.n_cols.source, 'user');
  });

  it('a --set that no kernel uses is a warning in every format; a used one is not', async () => {
    const args = ['analyze', path.join(FIX, 'softmax.py'), '--set', 'BLOCK_SIZE=512', '--set', 'BLOK_SIZE=256'];
    const doc = JSON.parse((await run([...args, '--format', 'json'])).out);
    assert.deepEqual(doc.diagnostics.map((d: { code: string }) => d.code), ['unusedSet']);
    assert.match(doc.diagnostics[0].message, /BLOK_SIZE/);
    assert.doesNotMatch(doc.diagnostics[0].message, /BLOCK_SIZE/);
    assert.match((await run(args)).out, /warning: --set BLOK_SIZE: no kernel/);
    assert.match((await run([...args, '--format', 'markdown'])).out, /\*\*warning\*\*: --set BLOK_SIZE/);
    const sarif = JSON.parse((await run([...args, '--format', 'sarif'])).out);
    assert.ok(sarif.runs[0].invocations[0].toolExecutionNotifications.some((n: { descriptor: { id: string } }) => n.descriptor.id === 'unusedSet'));
    const clean = JSON.parse((await run(['analyze', path.join(FIX, 'softmax.py'), '--set', 'BLOCK_SIZE=512', '--format', 'json'])).out);
    assert.equal(clean.diagnostics, undefined);
    // The launch geometry sets the number of programs even when the kernel's text does not name it; another language's is unused.
    const grid = JSON.parse((await run(['analyze', path.join(FIX, 'softmax.py'), '--set', 'tl.num_programs(0)=4', '--set', 'gridDim.x=4', '--format', 'json'])).out);
    assert.deepEqual(grid.diagnostics.map((d: { message: string }) => d.message.split(':')[0]), ['--set gridDim.x']);
  });

  it('text and Markdown formats show each kernel', async () => {
    const text = (await run(['analyze', path.join(FIX, 'vector_add.py')])).out;
    assert.match(text, /add_kernel/);
    assert.match(text, /memory \(DRAM\)/);
    const md = (await run(['analyze', path.join(FIX, 'vector_add.py'), '--format', 'markdown'])).out;
    assert.match(md, /^## Roofline Lens: H100 SXM/m);
    assert.match(md, /\| `add_kernel` \|/);
  });

  it('a directory is searched for kernel files', async () => {
    const doc = JSON.parse((await run(['analyze', FIX, '--format', 'json'])).out);
    assert.ok(doc.files.length >= 10);
  });

  it('usage errors exit 2 and say what to do', async () => {
    for (const args of [[], ['analyze'], ['frobnicate'], ['analyze', 'x.py', '--gpu', 'no-such-gpu'], ['analyze', 'x.py', '--set', 'novalue'], ['analyze', 'x.py', '--grid', '0'], ['analyze', 'x.py', '--dtype', 'a=float7'], ['analyze', 'x.py', '--format', 'yaml'], ['analyze', 'x.py', '--budget-ms', '0'], ['analyze', 'x.py', '--budget-ms', 'soon']]) {
      const r = await run(args);
      assert.equal(r.code, 2, `exit code for ${args.join(' ')}`);
      assert.match(r.err, /usage:/);
    }
    const r = await run(['analyze', 'x.py', '--gpu', 'nope']);
    assert.match(r.err, /unknown GPU 'nope'; known: .*h100-sxm/);
  });

  it('a missing file is a diagnostic and the other files go on', async () => {
    const { code, out } = await run(['analyze', '/nonexistent/k.py', path.join(FIX, 'vector_add.py'), '--format', 'json']);
    assert.equal(code, 0);
    const doc = JSON.parse(out);
    assert.equal(doc.files.length, 2);
    assert.match(doc.files[0].diagnostics[0].message, /cannot read/);
    assert.equal(doc.files[1].kernels[0].name, 'add_kernel');
  });

  it('--budget-ms is a safety net only: a generous one changes nothing (without it there is no wall-clock budget)', async () => {
    const file = path.join(FIX, 'matmul_autotune.py');
    const plain = await run(['analyze', file, '--format', 'json']);
    const budgeted = await run(['analyze', file, '--format', 'json', '--budget-ms', '600000']);
    assert.equal(plain.code, 0);
    assert.equal(budgeted.code, 0);
    assert.deepEqual(JSON.parse(budgeted.out).files, JSON.parse(plain.out).files);
    assert.match((await run(['analyze', file, '--budget-ms', '-5'])).err, /--budget-ms takes a positive number of milliseconds/);
  });

  it('gpus lists the catalogue', async () => {
    const { code, out } = await run(['gpus']);
    assert.equal(code, 0);
    assert.match(out, /h100-sxm/);
    const json = JSON.parse((await run(['gpus', '--format', 'json'])).out);
    assert.ok(json.gpus.length >= 12);
  });
});

describe('CLI --profile', () => {
  it('adds measured results to every format', async () => {
    const os = await import('node:os');
    const fs = await import('node:fs');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rl-profile-'));
    const cu = path.join(dir, 'add.cu');
    fs.writeFileSync(
      cu,
      '__global__ void add_kernel(const float* x, const float* y, float* out, int n) {\n  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  if (i < n) out[i] = x[i] + y[i];\n}\nvoid run(const float* x, const float* y, float* o) { add_kernel<<<4096, 256>>>(x, y, o, 1 << 20); }\n',
    );
    const prof = path.join(__dirname, 'fixtures', 'profiles', 'h100_raw.csv');
    const json = JSON.parse((await run(['analyze', cu, '--profile', prof, '--format', 'json'])).out);
    const k = json.files[0].kernels[0];
    assert.equal(k.name, 'add_kernel');
    assert.ok(k.measured && k.measured.length >= 1, 'measured results attached');
    const m = k.measured[0];
    assert.ok(m.achievedFlops > 0 && m.timeSeconds > 0);
    assert.ok(['memory-bound', 'memory-intensive', 'compute-bound', 'compute-intensive'].includes(m.situation));
    assert.equal(json.profile.format, 'ncu-raw');
    assert.ok(json.profile.matched >= 1);
    assert.match((await run(['analyze', cu, '--profile', prof])).out, /measured add_kernel: .*(memory|compute)-(bound|intensive)/);
    assert.match((await run(['analyze', cu, '--profile', prof, '--format', 'markdown'])).out, /\*\*Measured\*\*/);
    assert.match((await run(['analyze', cu, '--profile', prof, '--format', 'sarif'])).out, /measured /);
    const bad = await run(['analyze', cu, '--profile', path.join(dir, 'missing.csv')]);
    assert.equal(bad.code, 2);
    assert.match(bad.err, /--profile .*cannot read/);
  });
});

describe('CLI --profile with launch sizes and several GPUs (issue 15)', () => {
  const PROF = path.join(__dirname, 'fixtures', 'profiles');
  const src = path.join(PROF, 'src', 'matmul_bf16.py');
  const dtypes = ['--dtype', 'a_ptr=bf16', '--dtype', 'b_ptr=bf16'];

  it("a Proton launch named [M=…, N=…, K=…] is estimated for those sizes, binding source 'profile'", async () => {
    const json = JSON.parse((await run(['analyze', src, ...dtypes, '--profile', path.join(PROF, 'proton_launch_metadata.json'), '--format', 'json'])).out);
    const k = json.files[0].kernels[0];
    assert.deepEqual(k.unbound, ['K', 'M', 'N'], 'the source alone does not know the sizes');
    assert.equal(json.profile.matched, 1);
    const m = k.measured[0];
    assert.deepEqual(m.launchSizes, { M: 4096, N: 4096, K: 4096 });
    assert.equal(m.launchEstimate.bindingSources.M.source, 'profile');
    assert.equal(m.launchEstimate.flops, 2 * 4096 ** 3);
    assert.equal(m.flopsRatio, 1);
    assert.equal(m.flopConvention, 'launch-metadata');
    // A --set value wins over the profile's, and the note says the estimate is not for the measured launch.
    const set = JSON.parse((await run(['analyze', src, ...dtypes, '--set', 'K=1024', '--profile', path.join(PROF, 'proton_launch_metadata.json'), '--format', 'json'])).out);
    const m2 = set.files[0].kernels[0].measured[0];
    assert.equal(m2.launchEstimate.bindings.K, 1024);
    assert.ok(m2.notes.some((n: string) => /K=1024 .* overrides the launch's K=4096/.test(n)), m2.notes.join('\n'));
    const text = (await run(['analyze', src, ...dtypes, '--profile', path.join(PROF, 'proton_launch_metadata.json')])).out;
    assert.match(text, /measured matmul_kernel \[M=4096, N=4096, K=4096\]: 700 TFLOP\/s at 1365 FLOP\/B \(50 launches\)/);
  });

  it('a profile of another GPU than the selected one is a diagnostic naming it; its dots use its roofs', async () => {
    const out = (await run(['analyze', src, ...dtypes, '--profile', path.join(PROF, 'proton_two_gpus.json')])).out;
    assert.match(out, /profile: warning: the profile ran on CUDA device 1, identified as A100 SXM 80GB .*not on the selected H100 SXM.*\(--gpu a100-sxm-80gb\)/);
    assert.match(out, /measured matmul_kernel \[M=4096, N=4096, K=4096\] on CUDA device 1 \(A100 SXM 80GB\): 250 TFLOP\/s .*80 % of the roof: compute-bound/);
    const same = (await run(['analyze', src, ...dtypes, '--gpu', 'a100-sxm-80gb', '--profile', path.join(PROF, 'proton_two_gpus.json')])).out;
    assert.match(same, /profile: warning: the profile ran on CUDA device 0, .*H100 SXM/);
    assert.doesNotMatch(same, /ran on CUDA device 1/);
  });
});

describe('CLI over many files in worker threads', function () {
  this.timeout(300_000);
  const cli = path.join(__dirname, '..', 'dist', 'cli.js');
  const run = (args: string[]) => spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8', maxBuffer: 1 << 28, env: { ...process.env, ROOFLINE_LENS_TRACE_JOBS: '1' } });
  const runMain = async (args: string[]) => {
    let err = '';
    const code = await main(args, () => undefined, (s) => (err += s));
    return { code, err };
  };

  it('gives the same report, byte for byte, with --jobs 2 as in one thread', () => {
    const dir = path.join(__dirname, 'fixtures');
    const one = run(['analyze', dir, '--format', 'json', '--jobs', '1']);
    const two = run(['analyze', dir, '--format', 'json', '--jobs', '2']);
    assert.equal(one.status, 0, one.stderr);
    assert.equal(two.status, 0, two.stderr);
    const files = (JSON.parse(one.stdout) as { files: unknown[] }).files.length;
    assert.ok(files >= 50, `${files} files`);
    assert.equal(two.stdout, one.stdout);
    assert.match(two.stderr, /files in 2 worker threads \(0 redone here\)/);
    assert.doesNotMatch(one.stderr, /worker threads/);
  });

  it('its entry runs the CLI from the code cache the build wrote, and reports as the CLI run directly does', () => {
    const dir = path.join(__dirname, 'fixtures', 'cuda');
    const traced = spawnSync(process.execPath, [cli, 'analyze', dir, '--format', 'json', '--jobs', '1'], { encoding: 'utf8', maxBuffer: 1 << 28, env: { ...process.env, ROOFLINE_LENS_TRACE_CODE_CACHE: '1' } });
    assert.equal(traced.status, 0, traced.stderr);
    // V8 accepted it: a cache it rejects (a flag set before it is read, another build) would be work for nothing.
    assert.match(traced.stderr, /code cache used/);
    const direct = spawnSync(process.execPath, [path.join(path.dirname(cli), 'cli-main.js'), 'analyze', dir, '--format', 'json', '--jobs', '1'], { encoding: 'utf8', maxBuffer: 1 << 28 });
    assert.equal(direct.status, 0, direct.stderr);
    assert.equal(traced.stdout, direct.stdout);
  });

  it('its entry does not use a code cache made for another bundle (V8 would check only its length)', () => {
    const dist = path.dirname(cli);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rl-cache-'));
    try {
      for (const f of fs.readdirSync(dist)) if (/^cli(-main)?\.(js|cache)$|\.wasm$/.test(f)) fs.copyFileSync(path.join(dist, f), path.join(dir, f));
      // The same length, another text: a version string changed by one character.
      const version = (JSON.parse(fs.readFileSync(path.join(__dirname, '..', 'package.json'), 'utf8')) as { version: string }).version;
      const other = `${version.slice(0, -1)}${version.endsWith('9') ? '8' : '9'}`;
      const main = fs.readFileSync(path.join(dir, 'cli-main.js'), 'utf8');
      const at = main.indexOf(`"${version}"`);
      assert.ok(at > 0);
      fs.writeFileSync(path.join(dir, 'cli-main.js'), `${main.slice(0, at)}"${other}"${main.slice(at + version.length + 2)}`);
      const r = spawnSync(process.execPath, [path.join(dir, 'cli.js'), '--version'], { encoding: 'utf8', env: { ...process.env, ROOFLINE_LENS_TRACE_CODE_CACHE: '1' } });
      assert.equal(r.status, 0, r.stderr);
      assert.equal(r.stdout.trim(), other);
      assert.match(r.stderr, /code cache not used/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses a --jobs that is not a whole number from 1 to 64', async () => {
    for (const bad of ['0', '-1', '2.5', 'many']) {
      const r = await runMain(['analyze', path.join(__dirname, 'fixtures', 'triton', 'softmax.py'), '--jobs', bad]);
      assert.equal(r.code, 2, bad);
      assert.match(r.err, /--jobs takes a whole number/);
    }
  });
});
