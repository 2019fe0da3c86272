/**
 * The editor's analyses off its thread (issue 17): the analysis service and
 * its client (src/extension/analysis{Service,Client}.ts), the sliced loop
 * (sliced.ts), the kernels of the visible lines first (the driver's focus),
 * resumable parsing and lazy grammars (src/core/parsers.ts), and the lens
 * items built in chunks (lensItems.ts).
 *
 * Everything is compared with the plain, unsliced analysis: slices, workers
 * and slots change when and where a kernel is analysed, never its numbers.
 * No test here asserts a time.
 */
import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { analyzeSource, clearCaches } from '../src/core/analyze';
import { findGpu } from '../src/core/gpus/catalog';
import type { Language } from '../src/core/ir';
import { parseCached, parseSlice, parseStats, type Parsers, type WasmName } from '../src/core/parsers';
import type { FileReport, KernelReport } from '../src/core/report/types';
import { AnalysisClient, inHostService, loopback, macrotask, type StartService } from '../src/extension/analysisClient';
import { IN_HOST_SLICES, KERNELS_PER_MESSAGE, ReportDecoder, serveAnalyses, WORKER_SLICES, type FromService, type ToService } from '../src/extension/analysisService';
import { fileLensItems } from '../src/extension/lensItems';
import { headerTop, kernelLenses, loopLenses } from '../src/extension/present';
import { analyseInSlices } from '../src/extension/sliced';
import { nodeWorker } from '../src/desktop/nodeWorker';
import { fixtureFile } from './bench/fixtures';
import { tritonFile } from './bench/generate';
import { loadParsers } from './check';

const ROOT = path.join(__dirname, '..');
const H100 = findGpu('h100-sxm')!;
const EXT: Record<Language, string> = { triton: 'py', cuda: 'cu', wgsl: 'wgsl' };
const WASM: Record<WasmName, string> = {
  'web-tree-sitter.wasm': 'web-tree-sitter/web-tree-sitter.wasm',
  'tree-sitter-python.wasm': 'tree-sitter-python/tree-sitter-python.wasm',
  'tree-sitter-cuda.wasm': 'tree-sitter-cuda/tree-sitter-cuda.wasm',
};
const readWasm = async (name: WasmName): Promise<Uint8Array> => fs.readFileSync(path.join(ROOT, 'node_modules', WASM[name]));

/** What a report says, without object identity: every kernel's numbers and the diagnostics. */
const content = (r: FileReport | undefined): unknown => (r ? JSON.parse(JSON.stringify({ kernels: r.kernels, diagnostics: r.diagnostics, partial: r.partial })) : r);

/** The service in this thread, with every message it sends recorded. */
function recordedInHost(sent: FromService[], opts = { sliceMs: 0, maxSliceMs: 0 }): StartService {
  return () => {
    const [host, service] = loopback<FromService, ToService>();
    serveAnalyses({ post: (m) => (sent.push(m), service.post(m)), listen: (cb) => service.listen(cb) }, { ...opts, pause: macrotask });
    return { kind: 'in-host', port: host, onFailure: () => undefined, terminate: () => undefined };
  };
}

let parsers: Parsers;
before(async () => {
  parsers = await loadParsers();
});

describe('analysis service (the editor analyses off its thread)', function () {
  this.timeout(300_000);

  for (const lang of ['triton', 'cuda', 'wgsl'] as Language[]) {
    it(`${lang}: the service's report equals the unsliced analysis, and its partial reports come in file order with the focused kernel first`, async () => {
      const text = fixtureFile(ROOT, lang, 600);
      const file = `svc/${lang}.${EXT[lang]}`;
      clearCaches();
      const whole = analyzeSource(text, parsers, { gpu: H100, path: `whole-${file}` });
      assert.ok(whole.kernels.length >= 5, `${whole.kernels.length} kernels`);
      const target = whole.kernels[Math.floor(whole.kernels.length / 2)];
      clearCaches();
      const sent: FromService[] = [];
      const client = new AnalysisClient({ starters: [recordedInHost(sent)], readWasm });
      const partials: FileReport[] = [];
      try {
        const report = await client.analyse(
          { doc: file, supersede: true, text, options: { gpu: H100, path: `whole-${file}`, language: lang, focus: { startLine: target.line - 1, endLine: target.line - 1 } } },
          (r) => partials.push(r),
        ).promise;
        assert.deepEqual(content(report), content(whole));
        assert.ok(partials.length > 1, 'a zero-length slice gives one partial report per new kernel');
        assert.deepEqual(
          partials[0].kernels.map((k) => k.name),
          [target.name],
          'the first slice analyses the kernel on screen',
        );
        for (const p of partials) {
          const lines = p.kernels.map((k) => k.line);
          assert.deepEqual(lines, [...lines].sort((a, b) => a - b), 'file order');
          assert.equal(p.partial?.total, whole.kernels.length);
        }
        // Each kernel report crossed once, in messages of at most KERNELS_PER_MESSAGE.
        const added = sent.flatMap((m) => (m.type === 'kernels' ? m.add : []));
        assert.equal(added.length, whole.kernels.length);
        assert.ok(sent.every((m) => m.type !== 'kernels' || m.add.length <= KERNELS_PER_MESSAGE));
      } finally {
        client.dispose();
      }
    });
  }

  it('after an edit inside one kernel only that kernel crosses again', async () => {
    const text = fixtureFile(ROOT, 'triton', 800);
    const sent: FromService[] = [];
    const client = new AnalysisClient({ starters: [recordedInHost(sent, { sliceMs: 50, maxSliceMs: 50 })], readWasm });
    try {
      const options = { gpu: H100, path: 'svc/edit.py', language: 'triton' as const };
      const first = await client.analyse({ doc: 'edit', supersede: true, text, options }).promise;
      assert.ok(first && first.kernels.length > 3);
      // A digit in the body of the second kernel.
      const k = first.kernels[1];
      const lines = text.split('\n');
      const at = lines.findIndex((l, i) => i > k.line - 1 && i < (k.endLine ?? k.line) && /\d/.test(l.replace(/#.*/, '')));
      assert.ok(at > 0);
      lines[at] = lines[at].replace(/\d/, (d) => String((Number(d) + 1) % 10));
      sent.length = 0;
      const second = await client.analyse({ doc: 'edit', supersede: true, text: lines.join('\n'), options }).promise;
      assert.equal(second?.kernels.length, first.kernels.length);
      assert.equal(sent.flatMap((m) => (m.type === 'kernels' ? m.add : [])).length, 1);
      // The unchanged kernels are the very same report objects.
      assert.equal(second!.kernels.filter((x, i) => x === first.kernels[i]).length, first.kernels.length - 1);
    } finally {
      client.dispose();
    }
  });

  it('a newer text of the same document cancels the older analysis; forget and dispose resolve what waits', async () => {
    const text = tritonFile(400);
    const client = new AnalysisClient({ starters: [inHostService({ sliceMs: 0, pause: macrotask })], readWasm });
    try {
      const options = { gpu: H100, path: 'svc/cancel.py', language: 'triton' as const };
      const older = client.analyse({ doc: 'c', supersede: true, text, options });
      const newer = client.analyse({ doc: 'c', supersede: true, text: text + '\n', options });
      assert.equal(await older.promise, undefined);
      const r = await newer.promise;
      assert.ok(r && r.kernels.length > 10 && !r.partial);
      // A one-off request (the panel's) does not cancel the document's.
      const doc = client.analyse({ doc: 'd', supersede: true, text, options });
      const oneOff = client.analyse({ doc: 'd', supersede: false, text, options });
      assert.equal((await doc.promise)?.kernels.length, r.kernels.length);
      assert.equal((await oneOff.promise)?.kernels.length, r.kernels.length);
      const forgotten = client.analyse({ doc: 'e', supersede: true, text, options });
      client.forget('e');
      assert.equal(await forgotten.promise, undefined);
    } finally {
      client.dispose();
    }
    assert.equal(await client.analyse({ doc: 'f', supersede: true, text: 'x', options: { gpu: H100, path: 'f.py', language: 'triton' } }).promise, undefined);
  });

  it('a service that cannot start gives way to the next; with none, a request fails instead of waiting forever', async () => {
    const broken: StartService = () => {
      throw new Error('no Worker here');
    };
    let failLater: ((why: string) => void) | undefined;
    const dies: StartService = () => ({ kind: 'dies', port: { post: () => undefined, listen: () => undefined }, onFailure: (cb) => (failLater = cb), terminate: () => undefined });
    const warnings: string[] = [];
    const log = { info: () => undefined, warn: (m: string) => warnings.push(m), error: () => undefined };
    const client = new AnalysisClient({ starters: [broken, dies, inHostService({ ...IN_HOST_SLICES, pause: macrotask })], readWasm, log });
    try {
      const running = client.analyse({ doc: 'x', supersede: true, text: tritonFile(60), options: { gpu: H100, path: 'svc/fallback.py', language: 'triton' } });
      assert.equal(client.kind, 'dies');
      failLater!('it crashed before it was ready');
      const r = await running.promise;
      assert.equal(client.kind, 'in-host');
      assert.ok(r && r.kernels.length > 0);
      assert.ok(warnings.some((w) => w.includes('no Worker here')) && warnings.some((w) => w.includes('crashed')));
    } finally {
      client.dispose();
    }
    const none = new AnalysisClient({ starters: [broken], readWasm, log });
    await assert.rejects(none.analyse({ doc: 'y', supersede: true, text: 'x', options: { gpu: H100, path: 'y.py', language: 'triton' } }).promise, /no analysis service could start/);
    none.dispose();
  });

  /** Starts dist/worker.js as the desktop extension does (src/desktop/nodeWorker.ts), with `workerData`. */
  const desktopWorker = (workerData: { codeCache?: string } = {}): StartService => nodeWorker(path.join(ROOT, 'dist', 'worker.js'), workerData.codeCache);

  it('the desktop worker (dist/worker.js, a Node worker thread) gives the same reports as this thread', async function () {
    if (!fs.existsSync(path.join(ROOT, 'dist', 'worker.js'))) this.skip();
    const client = new AnalysisClient({ starters: [desktopWorker()], readWasm });
    try {
      for (const lang of ['triton', 'cuda', 'wgsl'] as Language[]) {
        const text = fixtureFile(ROOT, lang, 400);
        const options = { gpu: H100, path: `worker/${lang}.${EXT[lang]}`, language: lang };
        const r = await client.analyse({ doc: lang, supersede: true, text, options }).promise;
        clearCaches();
        assert.deepEqual(content(r), content(analyzeSource(text, parsers, options)), lang);
      }
      assert.equal(client.kind, 'worker');
    } finally {
      client.dispose();
    }
  });

  it("the desktop worker keeps V8's code cache of its bundle: written after its first report of each language, used by the next worker, replaced when made from another bundle, damaged or refused by V8", async function () {
    const main = path.join(ROOT, 'dist', 'worker-main.js');
    if (!fs.existsSync(main)) this.skip();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rl-worker-cache-'));
    // A folder not there yet: the worker makes it (VS Code's global storage folder may not exist).
    const cache = path.join(dir, 'storage', 'worker.v8cache');
    const digest = createHash('sha256').update(fs.readFileSync(main, 'utf8')).digest();
    // The bundle's digest, the rest's, the label's length and the label, V8's data (src/node/codeCache.ts).
    const labelOf = (file: Buffer): string => file.subarray(65, 65 + file[64]).toString('latin1');
    const sealed = (rest: Buffer): Buffer => Buffer.concat([digest, createHash('sha256').update(rest).digest(), rest]);
    const mtime = (file: string): number | undefined => (fs.existsSync(file) ? fs.statSync(file).mtimeMs : undefined);
    /** One new worker's analyses of `langs`' files: what it says of the cache, its reports, and the cache file after each. */
    const worker = async (langs: Language[] = ['triton'], codeCache = cache): Promise<{ said: string[]; reports: unknown[]; files: (Buffer | undefined)[] }> => {
      const said: string[] = [];
      const log = { info: (m: string) => void (m.includes('code cache') && said.push(m)), warn: () => undefined, error: () => undefined };
      const client = new AnalysisClient({ starters: [desktopWorker({ codeCache })], readWasm, log });
      const reports: unknown[] = [];
      const files: (Buffer | undefined)[] = [];
      try {
        for (const lang of langs) {
          const before = mtime(codeCache);
          const text = fixtureFile(ROOT, lang, 300);
          const r = await client.analyse({ doc: lang, supersede: true, text, options: { gpu: H100, path: `worker/cache.${EXT[lang]}`, language: lang } }).promise;
          reports.push(content(r));
          // A worker writes right after posting the report: wait up to 2 s for a new file (none comes when the cache holds the language).
          for (let i = 0; i < 40 && mtime(codeCache) === before; i++) await new Promise((res) => setTimeout(res, 50));
          files.push(fs.existsSync(codeCache) && fs.statSync(codeCache).isFile() ? fs.readFileSync(codeCache) : undefined);
        }
        return { said, reports, files };
      } finally {
        client.dispose();
      }
    };
    try {
      const first = await worker();
      assert.deepEqual(first.said, ['analysis service: code cache none']);
      const made = first.files[0];
      assert.ok(made && made.length > 10_000 && made.subarray(0, 32).equals(digest), 'a cache of this bundle was written');
      assert.equal(labelOf(made), 'triton');
      // The next worker uses it, reports the same, and writes again only for a language the cache was not made with.
      const second = await worker(['triton', 'cuda']);
      assert.deepEqual(second.said, ['analysis service: code cache used']);
      assert.deepEqual(second.reports[0], first.reports[0]);
      assert.ok(second.files[0]?.equals(made), 'a cache that holds the language is not written again');
      assert.equal(labelOf(second.files[1]!), 'cuda,triton');
      assert.ok(second.files[1]!.subarray(0, 32).equals(digest));
      assert.deepEqual((await worker(['cuda'])).said, ['analysis service: code cache used']);
      // Made from another bundle (another digest): not used, replaced.
      fs.writeFileSync(cache, Buffer.concat([Buffer.alloc(32, 7), made.subarray(32)]));
      const other = await worker();
      assert.deepEqual(other.said, ['analysis service: code cache none']);
      assert.deepEqual(other.reports, first.reports);
      assert.ok(other.files[0]?.subarray(0, 32).equals(digest) && labelOf(other.files[0]) === 'triton', 'replaced by one of this bundle');
      // Damaged on disk (one byte of V8's data changed; V8 itself would take it): not used, replaced.
      const damaged = Buffer.from(made);
      damaged[damaged.length >> 1] ^= 0xff;
      fs.writeFileSync(cache, damaged);
      const broken = await worker();
      assert.deepEqual(broken.said, ['analysis service: code cache none']);
      assert.deepEqual(broken.reports, first.reports);
      assert.ok(broken.files[0]?.subarray(0, 32).equals(digest) && !broken.files[0].equals(damaged), 'replaced');
      // Whole, of this bundle, but data V8 refuses (another V8 would write such a file): not used, replaced.
      fs.writeFileSync(cache, sealed(Buffer.concat([Buffer.from([0]), Buffer.alloc(4096, 1)])));
      const refused = await worker();
      assert.deepEqual(refused.said, ['analysis service: code cache rejected']);
      assert.deepEqual(refused.reports, first.reports);
      assert.ok(refused.files[0] && refused.files[0].length > 10_000 && labelOf(refused.files[0]) === 'triton');
      // Cut short inside its label: not a cache.
      fs.writeFileSync(cache, sealed(Buffer.concat([Buffer.from([200]), Buffer.from('triton')])));
      assert.deepEqual((await worker()).said, ['analysis service: code cache none']);
      assert.deepEqual((await worker()).said, ['analysis service: code cache used']);
      // Only the cache is left in the folder (no partial files).
      assert.deepEqual(fs.readdirSync(path.dirname(cache)), ['worker.v8cache']);
      // A folder that cannot be made (a file is in the way): no cache, the same reports, nothing else said.
      const unwritable = await worker(['triton'], path.join(cache, 'worker.v8cache'));
      assert.deepEqual(unwritable.said, ['analysis service: code cache none']);
      assert.deepEqual(unwritable.reports, first.reports);
      assert.deepEqual(unwritable.files, [undefined]);
      assert.ok(fs.statSync(cache).isFile());
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

/**
 * Parses `text` (CUDA) as document `key` in slices of 2 ms on a clock that
 * moves a millisecond at each look (a slice halts at the parse's third
 * progress check): how many slices halted, at most 5,000.
 */
function slicesOnTickingClock(key: string, text: string, prefix?: string): number {
  const real = Date.now;
  let now = real();
  Date.now = () => ++now;
  let slices = 0;
  try {
    while (!parseSlice(parsers.cuda, key, text, 2, prefix) && slices < 5_000) slices++;
  } finally {
    Date.now = real;
  }
  return slices;
}

describe('sliced analysis and resumable parsing', function () {
  this.timeout(300_000);

  it('a parse split into slices gives the tree of one parse; a parse of another document in between is not disturbed', async () => {
    const a = tritonFile(4000);
    const b = tritonFile(300).replace(/add_/g, 'other_');
    clearCaches();
    const whole = parsers.python.parse(a)!;
    const expected = whole.rootNode.toString();
    whole.delete();
    let slices = 0;
    let interleaved = false;
    while (!parseSlice(parsers.python, 'slices-a.py', a, 1)) {
      slices++;
      if (!interleaved) {
        // Another document's parse (an analysis of the panel, say) abandons the halted one cleanly.
        const other = parseCached(parsers.python, 'slices-b.py', b, undefined)!;
        assert.equal(other.rootNode.hasError, false);
        assert.ok(other.rootNode.text.includes('other_0'));
        interleaved = true;
      }
      assert.ok(slices < 100_000);
    }
    assert.ok(slices > 1, 'a 1 ms slice does not parse 4,000 lines');
    assert.equal(parseCached(parsers.python, 'slices-a.py', a, undefined)!.rootNode.toString(), expected);
  });

  it('a text read with a prefix in front (CUDA headers) is parsed in slices too: the prefix, then the rest from its tree; the same tree as one parse', async () => {
    // A large header in front, the fixtures' kernels after it.
    const header = fixtureFile(ROOT, 'cuda', 3000).replace(/__global__/g, '__device__');
    const own = fixtureFile(ROOT, 'cuda', 600);
    const text = `${header}\n${own}`;
    const prefix = `${header}\n`;
    const shape = (key: string, sliced: boolean, interleave = false): { tree: string; slices: number } => {
      clearCaches();
      let slices = 0;
      if (sliced)
        while (!parseSlice(parsers.cuda, key, text, 1, prefix)) {
          slices++;
          // Another document's parse between two slices abandons the halted one: the next slice starts over.
          if (interleave && slices === 2) assert.ok(parseCached(parsers.cuda, `${key}.other`, own, undefined));
          assert.ok(slices < 100_000);
        }
      return { tree: parseCached(parsers.cuda, key, text, undefined, false, prefix)!.rootNode.toString(), slices };
    };
    const whole = shape('prefix-whole.cu', false);
    const before = parseStats.fromPrefix;
    const sliced = shape('prefix-sliced.cu', true);
    assert.ok(sliced.slices > 2, `${sliced.slices} slices`);
    assert.equal(parseStats.fromPrefix - before, 1, 'the rest parsed from the prefix tree');
    assert.equal(sliced.tree, whole.tree);
    assert.equal(shape('prefix-interleaved.cu', true, true).tree, whole.tree);
  });

  it('a text with syntax errors gives the tree of one run through, however its parse in slices halted', async () => {
    // Halted and gone on with, tree-sitter can recover from an error otherwise than in one run (this text: when
    // halted at its third progress check). The clock moves a millisecond at each look: a slice of 2 ms halts there.
    const src = fs.readFileSync(path.join(__dirname, 'fixtures', 'cuda', 'float4_ref_twice.cu'), 'utf8');
    const text = src.slice(0, 858) + src.slice(861);
    const one = parsers.cuda.parse(text)!;
    const expected = one.rootNode.toString();
    assert.ok(one.rootNode.hasError);
    one.delete();
    parsers.cuda.reset();
    const halted = (() => {
      let n = 0;
      for (;;) {
        const t = parsers.cuda.parse(text, null, { progressCallback: () => ++n % 3 === 0 } as never);
        if (t) return t;
      }
    })();
    assert.notEqual(halted.rootNode.toString(), expected, 'tree-sitter itself: halted, another tree');
    halted.delete();
    clearCaches();
    const slices = slicesOnTickingClock('halted-errors.cu', text);
    assert.ok(slices >= 1);
    assert.equal(parseCached(parsers.cuda, 'halted-errors.cu', text, undefined)!.rootNode.toString(), expected);
    clearCaches();
  });

  it('a text read after a prefix with syntax errors is parsed in slices to the end (no parse that halts for ever)', async () => {
    // The prefix: a header with a syntax error; the rest: kernels. Each look at the clock moves it a millisecond.
    const broken = fs.readFileSync(path.join(__dirname, 'fixtures', 'cuda', 'float4_ref_twice.cu'), 'utf8');
    const prefix = `${fixtureFile(ROOT, 'cuda', 300).replace(/__global__/g, '__device__')}\n${broken.slice(0, 858)}${broken.slice(861)}\n`;
    const text = `${prefix}${fixtureFile(ROOT, 'cuda', 400)}`;
    clearCaches();
    const one = parseCached(parsers.cuda, 'prefix-errors-one.cu', text, undefined, false, prefix)!.rootNode.toString();
    assert.ok(one.includes('ERROR') || one.includes('MISSING'));
    clearCaches();
    const slices = slicesOnTickingClock('prefix-errors.cu', text, prefix);
    assert.ok(slices > 1 && slices < 5_000, `${slices} slices`);
    assert.equal(parseCached(parsers.cuda, 'prefix-errors.cu', text, undefined, false, prefix)!.rootNode.toString(), one);
    clearCaches();
  });

  it('analyseInSlices: cancelled at a pause it gives nothing; else the same report as one call', async () => {
    const text = fixtureFile(ROOT, 'cuda', 500);
    clearCaches();
    const whole = analyzeSource(text, parsers, { gpu: H100, path: 'slices.cu' });
    clearCaches();
    let pauses = 0;
    const cancelled = await analyseInSlices(parsers, text, { gpu: H100, path: 'slices.cu', language: 'cuda' }, { sliceMs: 0, pause: async () => void pauses++, cancelled: () => pauses >= 2 });
    assert.equal(cancelled, undefined);
    const r = await analyseInSlices(parsers, text, { gpu: H100, path: 'slices.cu', language: 'cuda' }, { sliceMs: 0, pause: macrotask });
    assert.deepEqual(content(r), content(whole));
  });

  /**
   * A worker's slices grow (8× the last call, up to maxSliceMs), and the
   * first call that reaches the kernels ends with the kernels on screen
   * (`focusFirst`): a slice grown while the file was scanned made them wait
   * for every kernel that fit in it. Each call here seems to take a second
   * (the clock moves 1,000 ms a look), which grows a slice to maxSliceMs at
   * once.
   */
  it('analyseInSlices: the kernels on screen come first, in a slice of their own (focusFirst until kernels are shown)', async () => {
    const text = fixtureFile(ROOT, 'triton', 400);
    const opts = { gpu: H100, path: 'first-lenses.py', language: 'triton' as const };
    clearCaches();
    const whole = analyzeSource(text, parsers, opts);
    const focusLine = whole.kernels[Math.floor(whole.kernels.length / 2)].line;
    clearCaches();
    let clock = 0;
    const partials: number[] = [];
    const r = await analyseInSlices(parsers, text, { ...opts, focus: { startLine: focusLine - 1, endLine: focusLine } }, {
      sliceMs: 0,
      maxSliceMs: 600_000,
      now: () => (clock += 1000),
      pause: macrotask,
      onPartial: (p) => partials.push(p.kernels.length),
    });
    assert.ok(partials.length > 0, 'a partial report before the whole');
    assert.ok(partials[0] < whole.kernels.length / 4, `the first partial report holds the kernels on screen, not ${partials[0]} of ${whole.kernels.length}`);
    assert.deepEqual(content(r), content(whole));
    // One call, a slice that never ends: with focusFirst it ends after the kernel on screen; without, it does all.
    for (const focusFirst of [true, false]) {
      clearCaches();
      const one = analyzeSource(text, parsers, { ...opts, sliceMs: 600_000, focus: { startLine: focusLine - 1, endLine: focusLine - 1 }, ...(focusFirst ? { focusFirst } : {}) });
      if (focusFirst) assert.deepEqual(one.kernels.map((k) => k.line), [focusLine], 'the kernel on screen only');
      else assert.equal(one.kernels.length, whole.kernels.length);
    }
    clearCaches();
  });

  /**
   * The parse ahead parses the text the analysis parses (CUDA: `__align__`
   * spelled as the grammar reads it; with project headers in front, the
   * analysis's own parse from the headers' tree): parsing the file as typed
   * instead put two texts under one document, each keystroke re-parsing the
   * other's tree — from scratch where the text as typed does not parse.
   */
  it('analyseInSlices parses ahead only the text the analysis parses (CUDA: `__align__` spelled, headers in front)', async () => {
    const kernel = ['typedef struct __align__(16) { float x, y, z, w; } quad;', '', '__global__ void scale(quad* q, float s, int n) {', '  int i = blockIdx.x * blockDim.x + threadIdx.x;', '  if (i < n) q[i].x *= s;', '}', ''].join('\n');
    const header = { path: 'quad_util.cuh', text: '#pragma once\n__device__ inline float twice(float v) { return 2.0f * v; }\n' };
    const withHeader = `#include "quad_util.cuh"\n${kernel}`;
    const parse = parsers.cuda.parse.bind(parsers.cuda);
    const parsed: string[] = [];
    parsers.cuda.parse = ((input: unknown, ...rest: unknown[]) => {
      if (typeof input === 'string') parsed.push(input);
      return (parse as (...a: unknown[]) => ReturnType<typeof parse>)(input, ...rest);
    }) as typeof parsers.cuda.parse;
    try {
      for (const [text, related] of [
        [kernel, undefined],
        [withHeader, { 'quad_util.cuh': header }],
      ] as const) {
        clearCaches();
        const opts = { gpu: H100, path: 'ahead.cu', ...(related ? { related } : {}) };
        const whole = analyzeSource(text, parsers, opts);
        clearCaches();
        parsed.length = 0;
        for (let i = 0; i < 3; i++) {
          const typed = text.replace('*= s;', `*= s + ${i}.0f;`);
          const r = await analyseInSlices(parsers, typed, { ...opts, language: 'cuda' }, { sliceMs: 0, pause: macrotask });
          if (i === 0) assert.equal(r!.kernels.length, whole.kernels.length);
        }
        assert.ok(parsed.length > 0);
        if (related) assert.ok(parsed.every((t) => t.startsWith(header.text)), 'with a header: parsed with the header in front');
        assert.ok(!parsed.some((t) => t.includes('__align__')), `${related ? 'with a header' : 'alone'}: the text as typed was parsed`);
      }
    } finally {
      parsers.cuda.parse = parse;
    }
  });

  it('a file report that names one kernel report twice decodes to both (the service sends it once)', () => {
    const k = { name: 'k', line: 3 } as unknown as KernelReport;
    const decoder = new ReportDecoder();
    decoder.kernels([[7, k]]);
    const wire = { path: 'twice.cu', language: 'cuda', diagnostics: [], kernels: [7, 7] } as unknown as Parameters<ReportDecoder['report']>[1];
    const r = decoder.report('twice.cu', wire);
    assert.deepEqual(r.kernels, [k, k]);
    // The next report of the document still knows it.
    assert.deepEqual(decoder.report('twice.cu', { ...wire, kernels: [7] }).kernels, [k]);
  });

  it('the worker and in-host settings: slices in a worker grow, the host keeps a safety net', () => {
    assert.ok(WORKER_SLICES.maxSliceMs > WORKER_SLICES.sliceMs && !('budgetMs' in WORKER_SLICES));
    assert.ok(IN_HOST_SLICES.sliceMs <= 50 && IN_HOST_SLICES.budgetMs > 0);
  });
});

describe('lazy grammars', function () {
  this.timeout(120_000);

  it('a Python-only process never reads the CUDA grammar; a CUDA file loads it on demand', () => {
    // A fresh process: the runtime and grammars are loaded once per process.
    const script = `
      const fs = require('node:fs');
      const { initParsers, loadGrammar, grammarLoaded } = require('./src/core/parsers');
      const { analyzeSource } = require('./src/core/analyze');
      const { findGpu } = require('./src/core/gpus/catalog');
      const read = [];
      const files = ${JSON.stringify(WASM)};
      (async () => {
        const p = await initParsers(async (n) => (read.push(n), fs.readFileSync('node_modules/' + files[n])), []);
        const gpu = findGpu('h100-sxm');
        const before = analyzeSource('import triton\\n@triton.jit\\ndef k(x):\\n    pass\\n', p, { gpu, path: 'a.py' });
        await loadGrammar(p, 'triton');
        const py = analyzeSource('import triton\\n@triton.jit\\ndef k(x):\\n    pass\\n', p, { gpu, path: 'a.py' });
        const afterPython = [...read];
        const wgsl = analyzeSource('@compute @workgroup_size(1) fn k() {}', p, { gpu, path: 'a.wgsl' });
        await loadGrammar(p, 'cuda');
        const cu = analyzeSource('__global__ void k(float* x) { x[threadIdx.x] = 1.0f; }', p, { gpu, path: 'a.cu' });
        console.log(JSON.stringify({ before: before.diagnostics.map((d) => d.message).join(' '), py: py.kernels.length, afterPython, wgsl: wgsl.kernels.length, cu: cu.kernels.length, read, loaded: grammarLoaded(p, 'cuda') }));
      })();`;
    const out = JSON.parse(execFileSync(process.execPath, ['--conditions=import', '--import', 'tsx', '-e', script], { cwd: ROOT, encoding: 'utf8' }).trim().split('\n').pop()!);
    assert.match(out.before, /Python grammar is not loaded/);
    assert.equal(out.py, 1);
    assert.deepEqual(out.afterPython, ['web-tree-sitter.wasm', 'tree-sitter-python.wasm']);
    assert.equal(out.wgsl, 1);
    assert.equal(out.cu, 1);
    assert.deepEqual(out.read, ['web-tree-sitter.wasm', 'tree-sitter-python.wasm', 'tree-sitter-cuda.wasm']);
    assert.equal(out.loaded, true);
  });
});

describe('lens items in chunks', () => {
  it('equal the lenses built in one piece, and are reused for an unchanged kernel report', async () => {
    const text = tritonFile(3000);
    const r = analyzeSource(text, parsers, { gpu: H100, path: 'lenses.py' });
    const lines = text.split('\n');
    const lineAt = (i: number): string => lines[i] ?? '';
    const direct = r.kernels.flatMap((k) => {
      const top = headerTop(lineAt, k.line - 1) + 1;
      return [...kernelLenses(k, H100.name, top), ...loopLenses(k)];
    });
    let pauses = 0;
    const items = await fileLensItems(r.kernels, lineAt, lines.length, H100.name, { kernels: true, loops: true }, async () => void pauses++);
    assert.deepEqual(
      items!.map((x) => x.item),
      direct,
    );
    assert.ok(pauses >= Math.floor(r.kernels.length / 200) && pauses > 0, `${pauses} pauses for ${r.kernels.length} kernels`);
    const again = await fileLensItems(r.kernels, lineAt, lines.length, H100.name, { kernels: true, loops: false }, async () => undefined);
    assert.equal(again![0].item, items![0].item, 'the same item object: built once per kernel report');
    assert.equal(await fileLensItems(r.kernels, lineAt, lines.length, H100.name, { kernels: true, loops: true }, async () => undefined, () => true), undefined);
  });
});
