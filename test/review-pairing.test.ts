/**
 * The pure half of `diff` (src/core/report/diff.ts): pairing kernels across
 * two revisions by name, then by text similarity (renamed in place, moved to
 * another file), telling apart unrelated kernels, and the regressions
 * `--fail-on` fires on; plus the reader of `git diff --name-status -z`.
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { analyzeForGpus } from '../src/cli/inputs';
import { parseNameStatus } from '../src/cli/git';
import { findGpu } from '../src/core/gpus/catalog';
import type { Parsers } from '../src/core/parsers';
import { diffReports, findRegressions, RENAME_SIMILARITY, type FileChange, type KernelChange, type RevisionInput } from '../src/core/report/diff';
import { multiReport } from '../src/cli/analyze';
import { loadParsers } from './check';

const FIX = path.join(__dirname, 'fixtures');
const BIG = fs.readFileSync(path.join(FIX, 'review', 'tiled_matmul.py'), 'utf8');
const SMALL = fs.readFileSync(path.join(FIX, 'review', 'tiled_matmul_small.py'), 'utf8');
const ADD = fs.readFileSync(path.join(FIX, 'triton', 'vector_add.py'), 'utf8');
const GPUS = [findGpu('h100-sxm')!, findGpu('mi300x')!];

let parsers: Parsers;
before(async () => {
  parsers = await loadParsers();
});

function revision(files: Record<string, string>, commit: string | null): RevisionInput {
  const reports = Object.entries(files).map(([p, text]) => analyzeForGpus(text, parsers, GPUS, { path: p }));
  return { info: { ref: commit, commit }, report: multiReport(GPUS, reports), sources: files };
}

function kinds(changes: KernelChange[]): string[] {
  return changes.map((c) => `${c.change} ${c.before?.name ?? '-'}@${c.before?.path ?? '-'} → ${c.after?.name ?? '-'}@${c.after?.path ?? '-'}`);
}

const modified = (p: string): FileChange => ({ status: 'modified', oldPath: p, newPath: p });

describe('diff pairing', () => {
  it('same name, same numbers: unchanged; same name, new tiles: changed', () => {
    const same = diffReports(revision({ 'k.py': BIG }, 'a'), revision({ 'k.py': BIG }, 'b'), [modified('k.py')]);
    assert.deepEqual(kinds(same.kernels), ['unchanged matmul_kernel@k.py → matmul_kernel@k.py']);
    const retiled = diffReports(revision({ 'k.py': BIG }, 'a'), revision({ 'k.py': SMALL }, 'b'), [modified('k.py')]);
    assert.deepEqual(kinds(retiled.kernels), ['changed matmul_kernel@k.py → matmul_kernel@k.py']);
    assert.equal(retiled.kernels[0].similarity, undefined, 'paired by name, not by text');
  });

  it('a kernel renamed in place is paired by its text', () => {
    const d = diffReports(revision({ 'k.py': BIG }, 'a'), revision({ 'k.py': BIG.replaceAll('matmul_kernel', 'gemm') }, 'b'), [modified('k.py')]);
    assert.deepEqual(kinds(d.kernels), ['changed matmul_kernel@k.py → gemm@k.py']);
    assert.equal(d.kernels[0].similarity, 1, 'only the name differs, and names are normalised away');
  });

  it('a kernel moved to another file and edited (no git rename) is followed; the deleted file says so', () => {
    const files: FileChange[] = [
      { status: 'deleted', oldPath: 'old/k.py', newPath: null },
      { status: 'added', oldPath: null, newPath: 'new/k2.py' },
    ];
    const edited = SMALL.replace('acc = tl.dot(a, b, acc)', 'acc += tl.dot(a, b)');
    assert.notEqual(edited, SMALL);
    const d = diffReports(revision({ 'old/k.py': BIG }, 'a'), revision({ 'new/k2.py': edited }, 'b'), files);
    assert.deepEqual(kinds(d.kernels), ['changed matmul_kernel@old/k.py → matmul_kernel@new/k2.py']);
    assert.ok(d.kernels[0].similarity! >= RENAME_SIMILARITY && d.kernels[0].similarity! < 1);
    assert.deepEqual(d.notes, [{ path: 'old/k.py', side: 'head', severity: 'info', message: 'file deleted: 1 kernel(s) moved to other files' }]);
  });

  it('an unrelated kernel in its place is removed + added, not paired', () => {
    const d = diffReports(revision({ 'k.py': BIG }, 'a'), revision({ 'k.py': ADD }, 'b'), [modified('k.py')]);
    assert.deepEqual(kinds(d.kernels), ['added -@- → add_kernel@k.py', 'removed matmul_kernel@k.py → -@-']);
  });

  it('every GPU of the revision is in each snapshot', () => {
    const d = diffReports(revision({ 'k.py': BIG }, 'a'), revision({ 'k.py': SMALL }, 'b'), [modified('k.py')]);
    assert.deepEqual(d.gpus.map((g) => g.id), ['h100-sxm', 'mi300x']);
    assert.deepEqual(Object.keys(d.kernels[0].after!.byGpu), ['h100-sxm', 'mi300x']);
  });
});

describe('diff regressions', () => {
  const retiled = (): ReturnType<typeof diffReports> => diffReports(revision({ 'k.py': BIG }, 'a'), revision({ 'k.py': SMALL }, 'b'), [modified('k.py')]);

  it('bound-regression: compute → memory on a GPU; the reverse is no regression', () => {
    assert.deepEqual(
      findRegressions(retiled(), { boundRegression: true, aiDropPercent: null }).map((r) => [r.kind, r.gpu]),
      [['bound-regression', 'h100-sxm']],
    );
    const better = diffReports(revision({ 'k.py': SMALL }, 'a'), revision({ 'k.py': BIG }, 'b'), [modified('k.py')]);
    assert.deepEqual(findRegressions(better, { boundRegression: true, aiDropPercent: 0 }), []);
  });

  it('ai-drop: more than PCT % (124.121 → 31.7519 is −74.4 %)', () => {
    assert.equal(findRegressions(retiled(), { boundRegression: false, aiDropPercent: 74.5 }).length, 0);
    const r = findRegressions(retiled(), { boundRegression: false, aiDropPercent: 74.3 });
    assert.deepEqual(r.map((x) => x.kind), ['ai-drop']);
    assert.match(r[0].message, /^matmul_kernel \(k\.py:38\): AI 124 → 31\.8 FLOP\/B, −74\.4 % \(limit 74\.3 %\)$/);
  });

  it('a kernel with a caveat (unparsable revision) or an unknown AI is never a regression', () => {
    const d = retiled();
    d.kernels[0].caveat = 'at head, k.py:40: syntax error';
    assert.deepEqual(findRegressions(d, { boundRegression: true, aiDropPercent: 0 }), []);
    const unknown = retiled();
    unknown.kernels[0].after!.arithmeticIntensity = null;
    for (const g of Object.values(unknown.kernels[0].after!.byGpu)) g.bound = 'unknown';
    assert.deepEqual(findRegressions(unknown, { boundRegression: true, aiDropPercent: 0 }), []);
  });

  it('added and removed kernels are never regressions', () => {
    const d = diffReports(revision({ 'k.py': BIG }, 'a'), revision({ 'k.py': ADD }, 'b'), [modified('k.py')]);
    assert.deepEqual(findRegressions(d, { boundRegression: true, aiDropPercent: 0 }), []);
  });
});

describe('git diff --name-status -z', () => {
  it('reads added, modified, deleted, renamed, copied and type changes', () => {
    const out = ['A', 'new.py', 'M', 'a b.py', 'D', 'gone.cu', 'R087', 'old.py', 'moved/new.py', 'C100', 'src.py', 'copy.py', 'T', 'link.wgsl', 'U', 'conflict.py', ''].join('\0');
    assert.deepEqual(parseNameStatus(out), [
      { status: 'added', oldPath: null, newPath: 'new.py' },
      { status: 'modified', oldPath: 'a b.py', newPath: 'a b.py' },
      { status: 'deleted', oldPath: 'gone.cu', newPath: null },
      { status: 'renamed', oldPath: 'old.py', newPath: 'moved/new.py' },
      { status: 'added', oldPath: null, newPath: 'copy.py' },
      { status: 'typechange', oldPath: 'link.wgsl', newPath: 'link.wgsl' },
    ]);
    assert.deepEqual(parseNameStatus(''), []);
  });
});
