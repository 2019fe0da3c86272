/**
 * The in-editor API suite. It runs INSIDE a VS Code extension host — the web
 * worker of VS Code's web build (@vscode/test-web), code-server's Node host,
 * or a desktop VS Code (@vscode/test-electron) — against the files of
 * test/e2e/workspace/, and calls the editor's own commands
 * (vscode.executeCodeLensProvider, vscode.executeHoverProvider, ...).
 *
 * scripts/e2e.sh bundles it to .e2e/suite.js; hosts call `run()`. It prints
 * `ok - name` / `FAIL - name: why` per test and a closing
 * `api suite: N passed, M failed` line, and rejects when a test failed.
 *
 * Expected numbers are derived by hand from COUNTING.md in each test.
 */
import * as vscode from 'vscode';

const EXTENSION_ID = 'roofline-lens.roofline-lens';

type Test = [name: string, body: () => Promise<void>];

function check(cond: unknown, message: string): asserts cond {
  if (!cond) throw new Error(message);
}

/** Polls `probe` until it returns a value (not undefined), or fails with the last value seen. */
async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, ms = 30_000): Promise<T> {
  const end = Date.now() + ms;
  let last: unknown;
  for (;;) {
    const v = await probe().catch((e: unknown) => ((last = e), undefined));
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}; last seen: ${JSON.stringify(last)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

function fileUri(name: string): vscode.Uri {
  const folder = vscode.workspace.workspaceFolders?.[0];
  check(folder, 'the test workspace folder is open');
  return vscode.Uri.joinPath(folder.uri, name);
}

async function open(name: string): Promise<vscode.TextDocument> {
  const doc = await vscode.workspace.openTextDocument(fileUri(name));
  await vscode.window.showTextDocument(doc, { viewColumn: vscode.ViewColumn.One });
  return doc;
}

/** Lens titles by 0-based line. */
async function lenses(doc: vscode.TextDocument): Promise<{ line: number; title: string; command: string; args: unknown[] }[]> {
  const found = (await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', doc.uri, 100)) ?? [];
  return found.map((l) => ({ line: l.range.start.line, title: l.command?.title ?? '', command: l.command?.command ?? '', args: l.command?.arguments ?? [] }));
}

/** Waits until a lens on `line` (0-based) has a title accepted by `accept`; returns that title. */
async function lensTitle(doc: vscode.TextDocument, line: number, accept: (t: string) => boolean): Promise<string> {
  let seen: string[] = [];
  return waitFor(`a lens on line ${line + 1} of ${doc.uri.path}`, async () => {
    const all = await lenses(doc);
    seen = all.map((l) => `${l.line + 1}: ${l.title}`);
    return all.find((l) => l.line === line && accept(l.title))?.title;
  }).catch((e: Error) => {
    throw new Error(`${e.message}; lenses: ${JSON.stringify(seen)}`);
  });
}

/** The hover text at a position, Markdown escapes removed. */
async function hoverText(doc: vscode.TextDocument, line: number, character: number): Promise<string> {
  const hovers = (await vscode.commands.executeCommand<vscode.Hover[]>('vscode.executeHoverProvider', doc.uri, new vscode.Position(line, character))) ?? [];
  const text = hovers.flatMap((h) => h.contents.map((c) => (typeof c === 'string' ? c : c.value))).join('\n');
  return text.replace(/\\(.)/g, '$1');
}

/** Position of the first occurrence of `needle` on a line that contains `lineText`. */
function positionOf(doc: vscode.TextDocument, lineText: string, needle: string): vscode.Position {
  for (let i = 0; i < doc.lineCount; i++) {
    const text = doc.lineAt(i).text;
    if (text.includes(lineText)) return new vscode.Position(i, text.indexOf(needle) + 1);
  }
  throw new Error(`no line with ${lineText} in ${doc.uri.path}`);
}

function includesAll(text: string, parts: string[]): void {
  const missing = parts.filter((p) => !text.includes(p));
  check(missing.length === 0, `missing ${JSON.stringify(missing)} in:\n${text}`);
}

/** Exports the panel's chart as SVG until `accept` takes it (the chart follows changes with a short delay). */
async function exportedSvg(name: string, accept: (svg: string) => boolean): Promise<string> {
  let last = '';
  return waitFor(`an exported chart (${name}) that passes the test`, async () => {
    const uri = await vscode.commands.executeCommand<string>('rooflineLens.exportChart', { format: 'svg', uri: fileUri(`out/${name}`).toString() });
    check(uri, 'the chart was exported');
    last = new TextDecoder().decode(await vscode.workspace.fs.readFile(vscode.Uri.parse(uri)));
    return accept(last) ? last : undefined;
  }).catch((e: Error) => {
    throw new Error(`${e.message}; last export: ${last.slice(0, 300)}…`);
  });
}

async function setGlobal(key: string, value: unknown): Promise<void> {
  await vscode.workspace.getConfiguration('rooflineLens').update(key, value, vscode.ConfigurationTarget.Global);
}

// softmax.py: BLOCK_SIZE = 1024 (launch), fp32. Per program: loads 1024·4 = 4096 B, stores 4096 B;
// FLOPs: x − max 1024, exp 1024, sum 1023, num / den 1024 = 4095 (max is 0 FLOPs).
// AI = 4095 / 8192 = 0.49988 → "0.5"; 4095 FLOP → "4.09 kFLOP", 8192 B → "8.19 kB". H100 SXM fp32 vector peak 66.9 TFLOP/s, DRAM 3.35 TB/s:
// ridge 66.9 / 3.35 = 19.97 → "20"; compulsory AI equals the tile AI (each row read once), DRAM limits.
const SOFTMAX_LENS = 'AI 0.5 FLOP/B · memory-bound (DRAM) · H100 SXM · 4.09 kFLOP / 8.19 kB per program';
/** The lens sits above the kernel's decorator: line 7, 0-based 6. */
const SOFTMAX_LENS_LINE = 6;

const tests: Test[] = [
  [
    'the extension activates on a served language',
    async () => {
      await open('softmax.py');
      const ext = vscode.extensions.getExtension(EXTENSION_ID);
      check(ext, `${EXTENSION_ID} is installed`);
      await waitFor('activation', async () => (ext.isActive ? true : undefined));
    },
  ],
  [
    'Triton softmax: kernel lens with intensity, bound, GPU and work per program',
    async () => {
      const doc = await open('softmax.py');
      const title = await lensTitle(doc, SOFTMAX_LENS_LINE, (t) => t.startsWith('AI '));
      check(title === SOFTMAX_LENS, `title was "${title}"`);
      const lens = (await lenses(doc)).find((l) => l.title === title);
      check(lens?.command === 'rooflineLens.showRoofline', `kernel lens runs Show Roofline, not ${lens?.command}`);
    },
  ],
  [
    'Triton softmax: hover on the kernel name explains the verdict',
    async () => {
      const doc = await open('softmax.py');
      const pos = positionOf(doc, 'def softmax_kernel', 'softmax_kernel');
      const text = await hoverText(doc, pos.line, pos.character);
      includesAll(text, [
        'softmax_kernel',
        'memory-bound (DRAM)',
        'AI **0.5 FLOP/B** per program',
        'ridge point 20 FLOP/B (DRAM)',
        'Compute-bound needs ≥ 20 FLOP/B',
        '`4·BLOCK_SIZE − 1`',
        '`BLOCK_SIZE` = `1024` · launch at line 22',
        'interior tile',
        'tl.exp',
      ]);
    },
  ],
  [
    'Triton softmax: hovers on a load and on tl.exp give their share',
    async () => {
      const doc = await open('softmax.py');
      const load = positionOf(doc, 'x = tl.load', 'tl.load');
      includesAll(await hoverText(doc, load.line, load.character), ['load in_ptr (fp32): 4.1 kB per program (50 % of bytes)', '`4·BLOCK_SIZE`']);
      const exp = positionOf(doc, 'tl.exp(z)', 'tl.exp');
      // 1024 of 4095 FLOPs = 25.0 %.
      includesAll(await hoverText(doc, exp.line, exp.character), ['`tl.exp`: 1.02 kFLOP per program (25 % of FLOPs)']);
    },
  ],
  [
    'CUDA vector add: kernel lens per block',
    async () => {
      // 256 threads per block, each: 2 fp32 loads (8 B), 1 store (4 B), 1 add.
      // Per block: 256 FLOP, 2048 + 1024 = 3072 B; AI = 256 / 3072 = 0.0833.
      const doc = await open('vector_add.cu');
      const title = await lensTitle(doc, 3, (t) => t.startsWith('AI ')); // no decorator: on the __global__ line
      check(title === 'AI 0.0833 FLOP/B · memory-bound (DRAM) · H100 SXM · 256 FLOP / 3.07 kB per block', `title was "${title}"`);
    },
  ],
  [
    'CUDA pipeline: the lens above forward() sums its launches and prices the fusion',
    async () => {
      // layers.cu: 2 layers of scale_by (8 B per element) → add (12 B per element) over 2^24 floats:
      // (134.2 MB + 201.3 MB) / 3.35 TB/s = 100.2 µs per layer, 200 µs in all; fusing scale_by → add
      // keeps h (2^24 × 4 B written, then read) on chip: 2 × 40.1 µs = 40 % of it.
      const doc = await open('layers.cu');
      const title = await lensTitle(doc, 13, (t) => t.startsWith('pipeline: '));
      check(title === 'pipeline: 4 launches · T ≥ 200 µs on H100 SXM · 100 % of it memory-bound · fusing 1 pair saves up to 40 %', `title was "${title}"`);
    },
  ],
  [
    'CUDA vector add: hover on the kernel name',
    async () => {
      const doc = await open('vector_add.cu');
      const pos = positionOf(doc, '__global__ void vector_add', 'vector_add');
      includesAll(await hoverText(doc, pos.line, pos.character), ['vector_add', 'memory-bound (DRAM)', 'per block', 'blockDim.x']);
    },
  ],
  [
    'WGSL #import: the struct and helper of shared/pair_ops.wgsl are read from the workspace',
    async () => {
      // 64 invocations: two 8-byte Pair loads, one Pair store, combine = 1 add + 1 multiply (max is free):
      // 128 FLOP / (1024 + 512) B = 0.0833. Without the imported file it would be incomplete (Pair's size unknown).
      const doc = await open('pairs.wgsl');
      const title = await lensTitle(doc, 6, (t) => t.startsWith('AI ')); // above @compute
      check(title === 'AI 0.0833 FLOP/B · memory-bound (DRAM) · H100 SXM · 128 FLOP / 1.54 kB per workgroup', `title was "${title}"`);
    },
  ],
  [
    'WGSL saxpy: kernel lens per workgroup',
    async () => {
      // 64 invocations, each: loads x[i], y[i] (8 B), stores y[i] (4 B), a * x + y (2 FLOPs);
      // params is a uniform (0 DRAM bytes). Per workgroup: 128 FLOP, 768 B; AI = 0.167.
      const doc = await open('elementwise.wgsl');
      const title = await lensTitle(doc, 10, (t) => t.startsWith('AI ')); // above @compute
      check(title === 'AI 0.167 FLOP/B · memory-bound (DRAM) · H100 SXM · 128 FLOP / 768 B per workgroup', `title was "${title}"`);
    },
  ],
  [
    'WGSL in a TypeScript template literal: kernel lens per workgroup',
    async () => {
      // 256 invocations, each: loads x (4 B), stores y (4 B), 2.0 * x (1 FLOP).
      // Per workgroup: 256 FLOP, 1024 + 1024 = 2048 B; AI = 0.125.
      const doc = await open('shader.ts');
      const title = await lensTitle(doc, 5, (t) => t.startsWith('AI ')); // above @compute
      check(title === 'AI 0.125 FLOP/B · memory-bound (DRAM) · H100 SXM · 256 FLOP / 2.05 kB per workgroup', `title was "${title}"`);
    },
  ],
  [
    'Triton matmul: an unknown K reads the K-loop steady state with a "bind K" lens beside it, and is reported as a diagnostic',
    async () => {
      // Per K step: tl.dot 2·128·128·64 = 2097152 FLOPs; a 128×64 and a 64×128 fp32 tile (element types
      // unknown: fp32) = (8192 + 8192)·4 = 65536 B; 2097152 / 65536 = 32 FLOP/B, independent of K.
      const doc = await open('matmul.py');
      const title = await lensTitle(doc, 7, (t) => t.startsWith('AI '));
      check(title === 'AI ≈ 32 FLOP/B · K-loop steady state (K unbound) · memory-bound (DRAM) · H100 SXM', `title was "${title}"`);
      const all = await lenses(doc);
      check(all.find((l) => l.title === title)?.command === 'rooflineLens.showRoofline', `the steady-state lens opens the panel: ${JSON.stringify(all)}`);
      const bindLens = all.find((l) => l.line === 7 && l.title === 'bind K');
      check(bindLens?.command === 'rooflineLens.bindSymbol', `a "bind K" lens runs Bind Symbol: ${JSON.stringify(all)}`);
      check((bindLens?.args[0] as { name?: string } | undefined)?.name === 'K', `for K: ${JSON.stringify(bindLens?.args)}`);
      check(all.some((l) => l.line === 18 && l.title === 'loop: ? trips (cdiv(K, BLOCK_K)) · bind K'), `loop lens: ${JSON.stringify(all)}`);
      const diags = await waitFor('a diagnostic', async () => {
        const d = vscode.languages.getDiagnostics(doc.uri).filter((x) => x.source === 'Roofline Lens');
        return d.length > 0 ? d : undefined;
      });
      check(diags[0].severity === vscode.DiagnosticSeverity.Information, 'information level');
      includesAll(diags[0].message, ['matmul_kernel: arithmetic intensity not estimated: `K` unknown', 'Roofline: Bind Symbol']);
    },
  ],
  [
    'Bind Symbol writes K to the workspace-folder settings and the lenses follow',
    async () => {
      const doc = await open('matmul.py');
      await vscode.commands.executeCommand('rooflineLens.bindSymbol', { name: 'K', value: 4096, target: 'settings', uri: doc.uri.toString() });
      const bindings = vscode.workspace.getConfiguration('rooflineLens', doc.uri).inspect<Record<string, unknown>>('bindings');
      check(bindings?.workspaceFolderValue?.K === 4096, `folder setting: ${JSON.stringify(bindings)}`);
      const title = await lensTitle(doc, 7, (t) => t.startsWith('AI ') && !t.includes('steady state'));
      check(/^AI \d[\d.]* FLOP\/B · (memory-bound \((DRAM|L2)\)|compute-bound) · H100 SXM · 134 MFLOP \/ [\d.]+ MB per program$/.test(title), `title was "${title}"`);
      // cdiv(4096, 64) = 64 trips; the loop holds every FLOP (the tl.dot).
      const loop = await lensTitle(doc, 18, (t) => t.startsWith('loop: 64 trips'));
      check(loop.startsWith('loop: 64 trips · 100 % of FLOPs · '), `loop lens was "${loop}"`);
      await waitFor('the diagnostic to clear', async () => (vscode.languages.getDiagnostics(doc.uri).some((d) => d.source === 'Roofline Lens') ? undefined : true));
      const pos = positionOf(doc, 'for k in range', 'for');
      includesAll(await hoverText(doc, pos.line, pos.character), ['Loop', '64 trips per entry = `cdiv(K, BLOCK_K)`', '100 % of FLOPs']);
    },
  ],
  [
    'Bind Symbol can insert a pragma comment instead',
    async () => {
      const doc = await open('matmul.py');
      const original = doc.getText();
      await vscode.commands.executeCommand('rooflineLens.bindSymbol', { name: 'M', value: 8192, target: 'pragma', uri: doc.uri.toString() });
      check(doc.getText().includes('# roofline: M=8192\n@triton.jit\ndef matmul_kernel('), `pragma inserted above the decorator:\n${doc.getText().slice(0, 400)}`);
      const pos = positionOf(doc, 'def matmul_kernel', 'matmul_kernel');
      const text = await waitFor('the pragma binding in the hover', async () => {
        const t = await hoverText(doc, pos.line, pos.character);
        return t.includes('`M` = `8192` · roofline pragma') ? t : undefined;
      });
      includesAll(text, ['`K` = `4096` · setting rooflineLens.bindings']);
      // Put the file back as it was. Not with "revert": web builds auto-save after a 1 s delay by
      // default, and on a loaded machine the pragma is on disk before the hover answers.
      const restore = new vscode.WorkspaceEdit();
      restore.replace(doc.uri, new vscode.Range(doc.positionAt(0), doc.positionAt(doc.getText().length)), original);
      await vscode.workspace.applyEdit(restore);
      await doc.save();
      check(doc.getText() === original, 'matmul.py is back as it was');
    },
  ],
  [
    'Changing rooflineLens.gpu (Select GPU) changes the lens',
    async () => {
      const doc = await open('softmax.py');
      const id = await vscode.commands.executeCommand('rooflineLens.selectGpu', 'a100-sxm-80gb');
      check(id === 'a100-sxm-80gb', `selectGpu returned ${String(id)}`);
      // A100: fp32 19.5 TFLOP/s, DRAM 2.039 TB/s → ridge 9.6; softmax stays memory-bound.
      const title = await lensTitle(doc, SOFTMAX_LENS_LINE, (t) => t.includes('A100'));
      check(title === 'AI 0.5 FLOP/B · memory-bound (DRAM) · A100 SXM 80GB · 4.09 kFLOP / 8.19 kB per program', `title was "${title}"`);
      await setGlobal('gpu', undefined);
      await lensTitle(doc, SOFTMAX_LENS_LINE, (t) => t === SOFTMAX_LENS);
    },
  ],
  [
    'a custom GPU from rooflineLens.customGpus can be selected',
    async () => {
      const doc = await open('softmax.py');
      await setGlobal('customGpus', [{ id: 'lab-gpu', name: 'Lab GPU', memoryBandwidth: 1e12, peaks: { vector: { fp32: 10e12 } } }]);
      await setGlobal('gpu', 'lab-gpu');
      const title = await lensTitle(doc, SOFTMAX_LENS_LINE, (t) => t.includes('Lab GPU'));
      check(title === 'AI 0.5 FLOP/B · memory-bound (DRAM) · Lab GPU · 4.09 kFLOP / 8.19 kB per program', `title was "${title}"`);
      await setGlobal('gpu', undefined);
      await setGlobal('customGpus', undefined);
      await lensTitle(doc, SOFTMAX_LENS_LINE, (t) => t === SOFTMAX_LENS);
    },
  ],
  [
    'Show Roofline opens the chart: a strict CSP, the roofs, the dot, real colours in the exported SVG and PNG',
    async () => {
      const doc = await open('softmax.py');
      const panel = await vscode.commands.executeCommand<vscode.WebviewPanel>('rooflineLens.showRoofline', { uri: doc.uri.toString(), name: 'softmax_kernel', line: 8 });
      check(panel?.viewType === 'rooflineLens.roofline', 'the command returns the roofline panel');
      const html = panel.webview.html;
      includesAll(html, ["default-src 'none'", "script-src 'nonce-", 'webview.js', 'panel.css', '<table id="kernels">']);
      check(!html.includes('unsafe-eval') && !/script-src[^;]*unsafe-inline/.test(html), 'no eval, no inline scripts');
      // softmax: AI 0.5 on the DRAM slope of the H100 SXM (3.35 TB/s): attainable 0.49988 × 3.35 TB/s = 1.67 TFLOP/s.
      const svg = await exportedSvg('softmax.svg', (t) => t.includes('softmax_kernel: tile'));
      includesAll(svg, [
        'softmax_kernel: tile intensity 0.5 FLOP/B, attainable 1.67 TFLOP/s, memory-bound (DRAM)',
        'arithmetic intensity (FLOP/B)',
        'DRAM 3.35 TB/s',
        'L2 9.7 TB/s',
        'vector fp32 66.9 TFLOP/s',
        'ridge 20',
      ]);
      check(!svg.includes('var(--'), 'the exported SVG carries real colours');
      const png = await vscode.commands.executeCommand<string>('rooflineLens.exportChart', { format: 'png', uri: fileUri('out/softmax.png').toString() });
      const bytes = await vscode.workspace.fs.readFile(vscode.Uri.parse(png ?? ''));
      check(bytes.length > 1000 && bytes[0] === 0x89 && bytes[1] === 0x50 && bytes[2] === 0x4e && bytes[3] === 0x47, `a PNG file (${bytes.length} bytes)`);
    },
  ],
  [
    'Show Roofline for Workspace plots the kernels of every Triton, CUDA and WGSL file',
    async () => {
      const panel = await vscode.commands.executeCommand<vscode.WebviewPanel>('rooflineLens.showWorkspaceRoofline');
      check(panel, 'the command returns the panel');
      // layers.py: add 1024 / 12288 = 0.0833, axpby 3072 / 12288 = 0.25, poly 6144 / 8192 = 0.75 FLOP/B.
      const names = ['softmax_kernel: tile intensity 0.5', 'vector_add: tile intensity 0.0833', 'saxpy: tile intensity 0.167', 'add_kernel: tile intensity 0.0833', 'axpby_kernel: tile intensity 0.25', 'poly_kernel: tile intensity 0.75'];
      const svg = await exportedSvg('workspace.svg', (t) => names.every((n) => t.includes(n)));
      check(!svg.includes('scale: tile'), 'WGSL inside TypeScript is not scanned');
    },
  ],
  [
    'Import Profile adds measured dots and regions to the chart, a figure to the lenses and a section to the hover',
    async () => {
      const result = await vscode.commands.executeCommand<{ format: string; launches: number }>('rooflineLens.importProfile', { uri: fileUri('profile_h100.csv').toString() });
      check(result?.format === 'ncu-raw' && result.launches === 3, `import: ${JSON.stringify(result)}`);
      // softmax_kernel: DRAM 16.78 MB + 16,780.00 kB = 33,560,000 B in 12.50 µs = 2.6848 TB/s = 80.1 % of 3.35 TB/s;
      // FLOPs fadd 8,384,512 + fmul 4,194,304 = 12,578,816 → 1.01 TFLOP/s at 12,578,816 / 33,560,000 = 0.375 FLOP/B
      // (left of the ridge, ≥ 70 % of the roof: memory-bound). Estimate: 4095 × 4096 programs = 16,773,120 FLOPs → ×0.75;
      // 8192 B × 4096 = 33,554,432 B → ×1.00.
      const doc = await open('softmax.py');
      await lensTitle(doc, SOFTMAX_LENS_LINE, (t) => t === `${SOFTMAX_LENS} · measured 1.01 TFLOP/s, 80.1 % of roof`);
      const pos = positionOf(doc, 'def softmax_kernel', 'softmax_kernel');
      includesAll(await hoverText(doc, pos.line, pos.character), ['**Measured** (imported profile)', '**memory-bound**', '80.1 % of the roof', 'FLOPs ×0.75', 'DRAM bytes ×1.00']);
      // vector_add (mangled _Z10vector_addPKfS0_Pfi): 134.22 MB + 67,110.00 kB = 201,330,000 B in 72.00 µs = 2.796 TB/s = 83.5 %;
      // fadd 16,777,216 in 72 µs = 233 GFLOP/s.
      const cu = await open('vector_add.cu');
      await lensTitle(cu, 3, (t) => t.endsWith('per block · measured 233 GFLOP/s, 83.5 % of roof'));
      await vscode.commands.executeCommand('rooflineLens.showRoofline', { uri: doc.uri.toString(), name: 'softmax_kernel', line: 8 });
      const svg = await exportedSvg('measured.svg', (t) => t.includes('softmax_kernel: measured'));
      includesAll(svg, ['softmax_kernel: measured 1.01 TFLOP/s at 0.375 FLOP/B, memory-bound', 'memory-intensive', 'compute-bound']);
      await vscode.commands.executeCommand('rooflineLens.clearProfile');
      await lensTitle(doc, SOFTMAX_LENS_LINE, (t) => t === SOFTMAX_LENS);
      await exportedSvg('cleared.svg', (t) => t.includes('softmax_kernel: tile') && !t.includes('softmax_kernel: measured'));
    },
  ],
  [
    'Copy Analysis as Markdown renders the file report',
    async () => {
      const doc = await open('softmax.py');
      const md = await vscode.commands.executeCommand<string>('rooflineLens.copyMarkdown', doc.uri.toString());
      includesAll(md ?? '', ['## Roofline Lens: H100 SXM', '`softmax_kernel`', '| 0.5 |', 'memory (DRAM)']);
    },
  ],
  [
    'Toggle CodeLens turns the lenses off and on again',
    async () => {
      const doc = await open('softmax.py');
      const off = await vscode.commands.executeCommand<boolean>('rooflineLens.toggleCodeLens');
      check(off === false, 'first toggle turns lenses off');
      await waitFor('no lenses', async () => ((await lenses(doc)).length === 0 ? true : undefined));
      const on = await vscode.commands.executeCommand<boolean>('rooflineLens.toggleCodeLens');
      check(on === true, 'second toggle turns them on');
      await lensTitle(doc, SOFTMAX_LENS_LINE, (t) => t === SOFTMAX_LENS);
      await setGlobal('codeLens.kernels', undefined);
      await setGlobal('codeLens.loops', undefined);
    },
  ],
  [
    'rooflineLens.codeLens.loops hides only the loop lenses',
    async () => {
      const doc = await open('matmul.py');
      await lensTitle(doc, 18, (t) => t.startsWith('loop:'));
      await setGlobal('codeLens.loops', false);
      await waitFor('loop lens gone', async () => {
        const all = await lenses(doc);
        return all.some((l) => l.title.startsWith('AI ')) && !all.some((l) => l.title.startsWith('loop:')) ? true : undefined;
      });
      await setGlobal('codeLens.loops', undefined);
    },
  ],
  [
    'a Python file without Triton gets no lenses',
    async () => {
      const doc = await open('plain.py');
      await new Promise((r) => setTimeout(r, 500));
      const all = await lenses(doc);
      check(all.length === 0, `lenses: ${JSON.stringify(all)}`);
    },
  ],
];

/**
 * The desktop extension's analysis worker writes V8's code cache of its
 * bundle in the extension's global storage after its first whole report
 * (src/desktop/workerLaunch.ts): there by now, since the tests above had
 * files analysed. `globalStorage` is this host's storage folder of the
 * runner extension; Roofline Lens's is beside it.
 */
function codeCacheTest(globalStorage: string): Test {
  return [
    "the desktop worker wrote its code cache in the extension's global storage",
    async () => {
      const cache = vscode.Uri.joinPath(vscode.Uri.file(globalStorage), '..', EXTENSION_ID, 'worker.v8cache');
      const stat = await waitFor(cache.fsPath, async () => vscode.workspace.fs.stat(cache));
      check(stat.size > 10_000, `${cache.fsPath} is ${stat.size} bytes`);
    },
  ];
}

/**
 * Runs every test; each result line goes to the console and to `report` (the
 * Node-host runner's log). Hosts that pass something else are ignored. The
 * Node host also says where extensions keep their global storage (`host`).
 */
export async function run(report?: unknown, host?: { globalStorage?: string }): Promise<void> {
  const say = (line: string): void => {
    console.log(line);
    if (typeof report === 'function') report(line);
  };
  let passed = 0;
  let failed = 0;
  for (const [name, body] of host?.globalStorage ? [...tests, codeCacheTest(host.globalStorage)] : tests) {
    const started = Date.now();
    try {
      await body();
      passed++;
      say(`ok - ${name} (${Date.now() - started} ms)`);
    } catch (e) {
      failed++;
      say(`FAIL - ${name}: ${String((e as Error)?.message ?? e)}`);
    }
  }
  say(`api suite: ${passed} passed, ${failed} failed`);
  if (failed > 0) throw new Error(`${failed} of ${passed + failed} API tests failed`);
}
