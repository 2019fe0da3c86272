/**
 * `roofline-lens diff` against real git repositories the tests build in a
 * temporary folder: a Triton matmul committed with large tiles, then with
 * small ones (it turns memory-bound on H100 SXM, stays compute-bound on
 * MI300X); exit codes with and without --fail-on; renamed files and kernels;
 * the default BASE and the working tree; bad input.
 */
import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { main } from '../src/cli/main';

const FIX = path.join(__dirname, 'fixtures');
const BIG = fs.readFileSync(path.join(FIX, 'review', 'tiled_matmul.py'), 'utf8');
const SMALL = fs.readFileSync(path.join(FIX, 'review', 'tiled_matmul_small.py'), 'utf8');
const ADD = fs.readFileSync(path.join(FIX, 'triton', 'vector_add.py'), 'utf8');

const GIT_ENV = {
  ...process.env,
  GIT_CONFIG_GLOBAL: os.devNull,
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_AUTHOR_NAME: 'Test',
  GIT_AUTHOR_EMAIL: 'test@example.invalid',
  GIT_COMMITTER_NAME: 'Test',
  GIT_COMMITTER_EMAIL: 'test@example.invalid',
};

const made: string[] = [];

function tempDir(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'roofline-review-'));
  made.push(d);
  return d;
}

function git(repo: string, ...args: string[]): string {
  return execFileSync('git', ['-C', repo, ...args], { env: GIT_ENV, stdio: ['ignore', 'pipe', 'pipe'] }).toString('utf8').trim();
}

function write(repo: string, file: string, text: string | Buffer): void {
  fs.mkdirSync(path.dirname(path.join(repo, file)), { recursive: true });
  fs.writeFileSync(path.join(repo, file), text);
}

function commit(repo: string, message: string): string {
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', message);
  return git(repo, 'rev-parse', 'HEAD');
}

/** main: large tiles and a README; returns the repository. */
function baseRepo(): string {
  const repo = tempDir();
  git(repo, 'init', '-q', '-b', 'main');
  write(repo, 'kernels/matmul.py', BIG);
  write(repo, 'README.md', '# kernels\n');
  commit(repo, 'large tiles');
  return repo;
}

async function run(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(args, (s) => (out += s), (s) => (err += s));
  return { code, out, err };
}

async function diffJson(args: string[]): Promise<{ code: number; doc: any }> {
  const r = await run(['diff', '--format', 'json', ...args]);
  assert.ok(r.code === 0 || r.code === 1, `exit ${r.code}: ${r.err}`);
  return { code: r.code, doc: JSON.parse(r.out) };
}

after(() => {
  for (const d of made) fs.rmSync(d, { recursive: true, force: true });
});

describe('roofline-lens diff', () => {
  describe('a tile change that turns the matmul memory-bound', () => {
    let repo: string;
    let base: string;
    let head: string;
    before(() => {
      repo = baseRepo();
      base = git(repo, 'rev-parse', 'HEAD');
      write(repo, 'kernels/matmul.py', SMALL);
      write(repo, 'kernels/add.py', ADD);
      write(repo, 'README.md', '# kernels, smaller tiles\n');
      head = commit(repo, 'small tiles, vector add');
    });

    it('reports the change old → new, per GPU, and the added kernel', async () => {
      const { code, doc } = await diffJson([base, head, '-C', repo, '--gpu', 'h100-sxm,mi300x']);
      assert.equal(code, 0);
      assert.deepEqual(doc.base, { ref: base, commit: base });
      assert.deepEqual(doc.head, { ref: head, commit: head });
      assert.deepEqual(doc.gpus.map((g: { id: string }) => g.id), ['h100-sxm', 'mi300x']);
      assert.deepEqual(
        doc.files.map((f: { status: string; newPath: string }) => [f.status, f.newPath]),
        [['added', 'kernels/add.py'], ['modified', 'kernels/matmul.py']],
        'README.md is not a kernel file',
      );
      assert.deepEqual(doc.kernels.map((k: { change: string }) => k.change), ['added', 'changed']);
      const mm = doc.kernels[1];
      // 8192/66 = 124.121 → 4096/129 = 31.7519 FLOP/B (fixture headers).
      assert.ok(Math.abs(mm.before.arithmeticIntensity - 8192 / 66) < 1e-9);
      assert.ok(Math.abs(mm.after.arithmeticIntensity - 4096 / 129) < 1e-9);
      assert.equal(mm.before.byGpu['h100-sxm'].bound, 'compute');
      assert.equal(mm.after.byGpu['h100-sxm'].bound, 'memory');
      assert.equal(mm.after.byGpu['h100-sxm'].boundLevel, 'l2');
      assert.equal(mm.before.byGpu.mi300x.bound, 'compute');
      assert.equal(mm.after.byGpu.mi300x.bound, 'compute');
      assert.equal(doc.kernels[0].after.name, 'add_kernel');
      assert.deepEqual(doc.regressions, []);
    });

    it('--fail-on fires only on real regressions, per selected GPU', async () => {
      const cases: [string[], number][] = [
        [[], 0],
        [['--fail-on', 'bound-regression'], 1],
        [['--fail-on', 'bound-regression', '--gpu', 'mi300x'], 0],
        [['--fail-on', 'bound-regression', '--gpu', 'mi300x,h100'], 1],
        [['--fail-on', 'ai-drop=80'], 0],
        [['--fail-on', 'ai-drop=70'], 1],
        [['--fail-on', 'ai-drop=80,bound-regression', '--gpu', 'l4'], 0],
      ];
      for (const [extra, want] of cases) {
        const r = await run(['diff', base, head, '-C', repo, ...extra]);
        assert.equal(r.code, want, `${extra.join(' ')}: ${r.out}${r.err}`);
      }
      const { doc } = await diffJson([base, head, '-C', repo, '--fail-on', 'bound-regression', '--fail-on', 'ai-drop=50']);
      assert.deepEqual(doc.failOn, { boundRegression: true, aiDropPercent: 50 });
      assert.deepEqual(doc.regressions.map((x: { kind: string }) => x.kind), ['bound-regression', 'ai-drop']);
      assert.match(doc.regressions[1].message, /AI 124 → 31\.8 FLOP\/B, −74\.4 % \(limit 50 %\)/);
    });

    it('Markdown and text show old → new and flag the regression', async () => {
      const md = await run(['diff', base, head, '-C', repo, '--format', 'markdown', '--gpu', 'h100-sxm,mi300x', '--fail-on', 'bound-regression']);
      assert.equal(md.code, 1);
      assert.match(md.out, /^## Roofline Lens diff: /m);
      assert.match(md.out, /\| `matmul_kernel` \| `kernels\/matmul.py:38` \| 124 → 31\.8 \(−74\.4 %\) \| 1365 \| ⚠ compute 989 TFLOP\/s → memory \(L2\) 308 TFLOP\/s \| compute 1\.31 PFLOP\/s \|/);
      assert.match(md.out, /### Added/);
      assert.match(md.out, /- matmul_kernel \(kernels\/matmul.py:38\): compute-bound → memory-bound on H100 SXM/);
      const text = await run(['diff', base, head, '-C', repo]);
      assert.match(text.out, /changed  matmul_kernel  kernels\/matmul.py:38\n +AI 124 → 31\.8 \(−74\.4 %\); compulsory AI 1365\n +h100-sxm: ⚠ compute 989 TFLOP\/s → memory \(L2\) 308 TFLOP\/s/);
    });

    it('paths restrict the diff (as positional arguments or after --)', async () => {
      for (const args of [[base, head, 'kernels/add.py'], [base, head, '--', 'kernels/add.py']]) {
        const { doc } = await diffJson(['-C', repo, ...args]);
        assert.deepEqual(doc.kernels.map((k: { change: string; after: { name: string } }) => [k.change, k.after.name]), [['added', 'add_kernel']]);
      }
    });
  });

  describe('defaults: BASE = merge base with the default branch, HEAD = the working tree', () => {
    it('sees uncommitted and untracked kernel files on a feature branch', async () => {
      const repo = baseRepo();
      const mainCommit = git(repo, 'rev-parse', 'HEAD');
      git(repo, 'checkout', '-q', '-b', 'feature');
      write(repo, 'notes.txt', 'not a kernel\n');
      commit(repo, 'unrelated');
      write(repo, 'kernels/matmul.py', SMALL);
      write(repo, 'kernels/new/add.py', ADD);
      const { code, doc } = await diffJson(['-C', repo, '--fail-on', 'bound-regression']);
      assert.equal(code, 1);
      assert.deepEqual(doc.base, { ref: 'merge-base(HEAD, main)', commit: mainCommit });
      assert.deepEqual(doc.head, { ref: null, commit: null });
      assert.deepEqual(doc.kernels.map((k: { change: string; after: { path: string } }) => [k.change, k.after.path]), [
        ['changed', 'kernels/matmul.py'],
        ['added', 'kernels/new/add.py'],
      ]);
      const md = await run(['diff', '-C', repo, '--format', 'markdown']);
      assert.match(md.out, /→ working tree/);
      const onlyNew = await diffJson(['-C', repo, 'kernels/new']);
      assert.deepEqual(onlyNew.doc.kernels.map((k: { change: string; after: { path: string } }) => [k.change, k.after.path]), [['added', 'kernels/new/add.py']]);
    });

    it('falls back to master, and exits 2 when there is no default branch', async () => {
      const repo = tempDir();
      git(repo, 'init', '-q', '-b', 'master');
      write(repo, 'k.py', BIG);
      const first = commit(repo, 'one');
      assert.equal((await diffJson(['-C', repo])).doc.base.commit, first);
      git(repo, 'branch', '-m', 'master', 'trunk');
      const r = await run(['diff', '-C', repo]);
      assert.equal(r.code, 2);
      assert.match(r.err, /cannot find the default branch \(origin\/HEAD, main or master\)/);
    });
  });

  describe('renames', () => {
    it('follows a renamed file and a renamed kernel (same body)', async () => {
      const repo = baseRepo();
      git(repo, 'mv', 'kernels/matmul.py', 'kernels/gemm.py');
      write(repo, 'kernels/gemm.py', BIG.replaceAll('matmul_kernel', 'gemm_kernel'));
      const head = commit(repo, 'rename');
      const { code, doc } = await diffJson(['HEAD~1', head, '-C', repo, '--fail-on', 'bound-regression,ai-drop=0']);
      assert.equal(code, 0);
      assert.deepEqual(doc.files, [{ status: 'renamed', oldPath: 'kernels/matmul.py', newPath: 'kernels/gemm.py' }]);
      assert.equal(doc.kernels.length, 1);
      const k = doc.kernels[0];
      assert.equal(k.change, 'changed');
      assert.deepEqual([k.before.name, k.before.path, k.after.name, k.after.path], ['matmul_kernel', 'kernels/matmul.py', 'gemm_kernel', 'kernels/gemm.py']);
      assert.ok(k.similarity >= 0.8 && k.similarity <= 1, `similarity ${k.similarity}`);
      assert.equal(k.before.arithmeticIntensity, k.after.arithmeticIntensity);
      const text = (await run(['diff', 'HEAD~1', head, '-C', repo])).out;
      assert.match(text, /changed  gemm_kernel \(was matmul_kernel\)  kernels\/gemm.py:37 \(was kernels\/matmul.py\)/);
    });

    it('a kernel renamed and retiled in place is one changed kernel, not removed + added', async () => {
      const repo = baseRepo();
      write(repo, 'kernels/matmul.py', SMALL.replaceAll('matmul_kernel', 'mm_small_tiles'));
      const head = commit(repo, 'rename and retile');
      const { code, doc } = await diffJson(['HEAD~1', head, '-C', repo, '--fail-on', 'bound-regression']);
      assert.equal(code, 1);
      assert.deepEqual(doc.kernels.map((k: { change: string }) => k.change), ['changed']);
      assert.equal(doc.kernels[0].after.name, 'mm_small_tiles');
      assert.equal(doc.regressions[0].kernel, 'mm_small_tiles');
    });
  });

  describe('bad input', () => {
    it('not a git repository: exit 2 with a message', async () => {
      const dir = tempDir();
      const r = await run(['diff', '-C', dir]);
      assert.equal(r.code, 2);
      assert.match(r.err, /^roofline-lens: not a git repository: /);
      const missing = await run(['diff', '-C', path.join(dir, 'nope')]);
      assert.equal(missing.code, 2);
      assert.match(missing.err, /not a git repository: .*does not exist/);
    });

    it('an unknown ref: exit 2 with a message', async () => {
      const repo = baseRepo();
      for (const args of [['no-such-branch'], ['HEAD', 'no-such-branch'], ['deadbeefdeadbeef']]) {
        const r = await run(['diff', '-C', repo, ...args]);
        assert.equal(r.code, 2, args.join(' '));
        assert.match(r.err, /unknown revision '(no-such-branch|deadbeefdeadbeef)'/);
      }
    });

    it('usage errors exit 2: bad --fail-on, a path outside the repository', async () => {
      const repo = baseRepo();
      for (const args of [['--fail-on', 'slower'], ['--fail-on', 'ai-drop=x'], ['--fail-on', 'ai-drop=150'], ['HEAD', 'HEAD', '--', '/']]) {
        const r = await run(['diff', '-C', repo, ...args]);
        assert.equal(r.code, 2, args.join(' '));
        assert.match(r.err, /--fail-on|outside the repository/);
      }
    });

    it('binary, deleted and unparsable files: a clear line each, no false regression', async () => {
      const repo = baseRepo();
      write(repo, 'kernels/add.py', ADD);
      const base = commit(repo, 'add');
      fs.rmSync(path.join(repo, 'kernels/add.py'));
      write(repo, 'kernels/blob.py', Buffer.from([0x69, 0x6d, 0x70, 0x6f, 0x72, 0x74, 0x20, 0x74, 0x72, 0x69, 0x74, 0x6f, 0x6e, 0x0a, 0x00, 0xff, 0x00, 0x01]));
      write(repo, 'kernels/matmul.py', SMALL.replace('b = tl.load(b_ptrs)', 'b = tl.load(b_ptrs'));
      const head = commit(repo, 'break things');
      const r = await run(['diff', base, head, '-C', repo, '--format', 'json', '--fail-on', 'bound-regression,ai-drop=1']);
      assert.equal(r.code, 0, r.out);
      const doc = JSON.parse(r.out);
      const notes = doc.notes.map((n: { path: string; message: string }) => `${n.path}: ${n.message}`);
      assert.ok(notes.some((n: string) => /^kernels\/add.py: file deleted: 1 kernel\(s\) removed$/.test(n)), notes.join('\n'));
      assert.ok(notes.some((n: string) => /^kernels\/blob.py: file does not look like text/.test(n)), notes.join('\n'));
      assert.ok(notes.some((n: string) => /^kernels\/matmul.py: syntax error/.test(n)), notes.join('\n'));
      const mm = doc.kernels.find((k: { before?: { name: string } }) => k.before?.name === 'matmul_kernel');
      assert.ok(mm.caveat && /at head, kernels\/matmul.py:\d+: syntax error/.test(mm.caveat), JSON.stringify(mm));
      assert.deepEqual(doc.regressions, []);
      const removed = doc.kernels.find((k: { change: string }) => k.change === 'removed');
      assert.equal(removed.before.name, 'add_kernel');
      const md = (await run(['diff', base, head, '-C', repo, '--format', 'markdown'])).out;
      assert.match(md, /### Notes/);
      assert.match(md, /- `kernels\/blob.py:1` \(head\): file does not look like text/);
    });
  });
});
