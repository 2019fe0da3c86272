/**
 * Part B of scripts/e2e.sh: the extension in a real VS Code workbench
 * (code-server, Node extension host, the packaged .vsix), driven through
 * chromium by playwright-core. Reads what a user sees: CodeLens text in the
 * editor, hovers, the command palette, the webview, the status bar.
 *
 * Run: CS_URL=http://127.0.0.1:8765 WS=/abs/workspace SHOTS_DIR=/abs/dir \
 *      node --import tsx --test test/e2e/ui.e2e.ts
 * (named .e2e.ts so that mocha's test/**\/*.test.ts never picks it up).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { chromium, type Browser, type Page } from 'playwright-core';

const BASE = process.env.CS_URL ?? 'http://127.0.0.1:8765';
const WS = process.env.WS ?? '';
const SHOTS = process.env.SHOTS_DIR ?? '/tmp/roofline-lens-shots';
const SOFTMAX_LENS = 'AI 0.5 FLOP/B · memory-bound (DRAM) · H100 SXM · 4.09 kFLOP / 8.19 kB per program';

let browser: Browser;
let page: Page;

before(async () => {
  assert.ok(WS, 'WS names the workspace folder');
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    headless: true,
    // No --user-data-dir: Playwright rejects it here and already uses a fresh profile.
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  page = await browser.newPage({ viewport: { width: 1500, height: 950 } });
  page.setDefaultTimeout(60_000);
  await page.goto(`${BASE}/?folder=${encodeURIComponent(WS)}`);
  await page.locator('.monaco-workbench').waitFor();
});

after(async () => {
  await page?.screenshot({ path: `${SHOTS}/ui-final.png` }).catch(() => undefined);
  await browser?.close();
});

/** Opens a file from the explorer and waits for its text. */
async function openFile(name: string, text: string): Promise<void> {
  await page.locator('.explorer-folders-view .monaco-list-row', { hasText: name }).first().click();
  await page.locator('.monaco-editor .view-lines', { hasText: text }).first().waitFor();
}

/**
 * The first CodeLens whose text contains `text` (the first lens waits for the extension host to start:
 * 5-8 s on an idle machine, 89 s measured on a 2-core one running other test suites, hence 180 s).
 */
async function lens(text: string) {
  const l = page.locator('.monaco-editor .codelens-decoration a, .monaco-editor .codelens-decoration span', { hasText: text }).first();
  await l.waitFor({ timeout: 180_000 });
  return l;
}

/**
 * The shown text of the first CodeLens containing `text`. The element can be in the DOM while VS Code
 * still keeps it hidden (a lens being refreshed): its innerText is '' then (a CI run read '' once), so
 * this waits until the text is laid out.
 */
async function lensText(text: string): Promise<string> {
  const l = await lens(text);
  const deadline = Date.now() + 30_000;
  for (;;) {
    const shown = (await l.innerText()).trim();
    if (shown.includes(text) || Date.now() > deadline) return shown;
    await page.waitForTimeout(100);
  }
}

async function hoverToken(lineText: string, token: string, expect: string): Promise<string> {
  const line = page.locator('.monaco-editor .view-line', { hasText: lineText }).first();
  await line.locator('span span', { hasText: new RegExp(`^${token}$`) }).first().hover();
  const hover = page.locator('.monaco-hover', { hasText: expect }).first();
  await hover.waitFor({ timeout: 30_000 });
  return hover.innerText();
}

async function closeHover(): Promise<void> {
  await page.mouse.move(5, 5);
  await page.keyboard.press('Escape');
}

/** A screenshot of the editor's top-left region, grown to hold everything matching `extra` (a hover). */
async function shot(file: string, extra?: string): Promise<void> {
  const editor = await page.locator('.part.editor').boundingBox();
  assert.ok(editor, 'the editor part is visible');
  let right = editor.x + Math.min(editor.width, 900);
  let bottom = editor.y + Math.min(editor.height, 430);
  if (extra) {
    const box = await page.locator(extra).first().boundingBox();
    if (box) {
      right = Math.max(right, box.x + box.width + 12);
      bottom = Math.max(bottom, box.y + box.height + 12);
    }
  }
  await page.screenshot({ path: `${SHOTS}/${file}`, clip: { x: editor.x, y: editor.y, width: right - editor.x, height: bottom - editor.y } });
}

async function runCommand(title: string): Promise<void> {
  await page.keyboard.press('F1');
  const input = page.locator('.quick-input-widget input[type="text"]');
  await input.waitFor();
  await input.fill(`>${title}`);
  await page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first().waitFor();
  await page.keyboard.press('Enter');
}

test('Triton: the kernel lens shows intensity, bound, GPU and work per program', async () => {
  await openFile('softmax.py', 'softmax_kernel');
  assert.equal(await lensText('AI 0.5 FLOP/B'), SOFTMAX_LENS);
  await shot('lens-triton.png');
});

test('Triton: hovering the kernel name shows the breakdown and what would change the verdict', async () => {
  const text = await hoverToken('def softmax_kernel', 'softmax_kernel', 'Compute-bound needs');
  for (const part of ['memory-bound (DRAM)', 'ridge point 20 FLOP/B (DRAM)', 'FLOPs by operation', 'Bytes by tensor', 'BLOCK_SIZE', 'launch at line 22']) {
    assert.ok(text.includes(part), `hover lacks "${part}":\n${text}`);
  }
  await shot('hover-triton.png', '.monaco-hover');
  await closeHover();
});

test('the status bar names the GPU', async () => {
  await page.locator('.statusbar-item', { hasText: 'H100 SXM' }).first().waitFor();
});

test('CUDA: the kernel lens is per block', async () => {
  await openFile('vector_add.cu', '__global__');
  assert.match(await lensText('per block'), /^AI 0\.0833 FLOP\/B · memory-bound \(DRAM\) · H100 SXM · 256 FLOP \/ 3\.07 kB per block$/);
  await shot('lens-cuda.png');
});

test('WGSL: the kernel lens is per workgroup', async () => {
  await openFile('elementwise.wgsl', '@compute');
  assert.match(await lensText('per workgroup'), /^AI 0\.167 FLOP\/B · memory-bound \(DRAM\) · H100 SXM · 128 FLOP \/ 768 B per workgroup$/);
  await shot('lens-wgsl.png');
});

test('clicking "bind K" offers the values the file suggests and free entry; the lens follows', async () => {
  await openFile('matmul.py', 'matmul_kernel');
  // K cancels in the tile intensity: the lens shows the K-loop steady state, with "bind K" beside it.
  await lens('K-loop steady state (K unbound)');
  await page.locator('.monaco-editor .codelens-decoration a', { hasText: /^bind K$/ }).first().click();
  const widget = page.locator('.quick-input-widget', { hasText: 'Roofline: Bind K' });
  await widget.waitFor();
  // The launch's tile sizes with their source, powers of two near them, common sizes.
  const row = (text: string) => page.locator('.quick-input-list .monaco-list-row', { hasText: text }).first();
  await row('BLOCK_K · launch at line').waitFor();
  await row('a common size').waitFor();
  await shot('quickpick-bind-k.png', '.quick-input-widget');
  const input = page.locator('.quick-input-widget input[type="text"]');
  await input.fill('4096');
  await row('the value typed').waitFor();
  await page.keyboard.press('Enter');
  // The first time, where values live; remembered afterwards.
  await row('Workspace folder settings').waitFor();
  await row('Workspace folder settings').click();
  await lens('134 MFLOP');
  await lens('loop: 64 trips');
  await shot('lens-bind-k.png');
});

test('the next binding goes where the first went, without asking again', async () => {
  // matmul.py needs no value any more: Bind Symbol asks for a name, then a value, and writes it where K went.
  await runCommand('Roofline: Bind Symbol…');
  const input = page.locator('.quick-input-widget input[type="text"]');
  await page.locator('.quick-input-widget', { hasText: 'Roofline: Bind Symbol' }).waitFor();
  await input.fill('M');
  await page.keyboard.press('Enter');
  await page.locator('.quick-input-widget', { hasText: 'Roofline: Bind M' }).waitFor();
  const row = (text: string) => page.locator('.quick-input-list .monaco-list-row', { hasText: text }).first();
  // The remembered destination is said in the value pick (its last item changes it).
  await row('Written to the rooflineLens.bindings setting').waitFor();
  await input.fill('8192');
  await row('the value typed').waitFor();
  await page.keyboard.press('Enter');
  // Not asked where values live: the pick closes and the value is in the setting (the hover says so).
  await page.locator('.quick-input-widget').waitFor({ state: 'hidden' });
  assert.equal(await page.locator('.quick-input-list .monaco-list-row', { hasText: 'Workspace folder settings' }).count(), 0);
  const text = await hoverToken('def matmul_kernel', 'matmul_kernel', 'M = 8192');
  assert.match(text, /M = 8192 · setting rooflineLens\.bindings/);
  await closeHover();
});

/** The panel's page: webview = outer <iframe class="webview ready"> (host page) → inner <iframe id="active-frame"> (our HTML). */
function panelFrame() {
  return page.frameLocator('iframe.webview.ready').frameLocator('#active-frame');
}

/** Console lines of every frame that report a Content-Security-Policy violation. */
const cspConsole: string[] = [];

/** Polls `probe` every 100 ms for up to 30 s. */
async function until(probe: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 300; i++) {
    if (await probe()) return;
    await page.waitForTimeout(100);
  }
  throw new Error(`timed out waiting until ${what}`);
}

/** Waits until the chart has been drawn more than `after` times; returns the new count. */
async function rendered(after: number): Promise<number> {
  const body = panelFrame().locator('body');
  for (let i = 0; i < 300; i++) {
    const n = Number((await body.getAttribute('data-renders')) ?? '0');
    if (n > after) return n;
    await page.waitForTimeout(100);
  }
  throw new Error(`the chart was not drawn again after render ${after}`);
}

/** The transform (position) of a kernel's dot, found by its aria-label. */
async function dotTransform(label: string): Promise<string> {
  const dot = panelFrame().locator(`#chart svg .role-mark.kernels_marks path[aria-label^="${label}"]`).first();
  await dot.waitFor({ timeout: 60_000 });
  return (await dot.getAttribute('transform')) ?? '';
}

/**
 * The chart's labels as drawn (roofs, ridges, slopes, regions): each text's box from the browser
 * (getBBox, the glyph cells, in its own coordinates, through getCTM: rotation included), and every
 * pair of boxes that overlap (separating axes). The spec builder lays the labels out so that none do.
 * (No named functions inside: tsx would wrap them in a helper the page does not have.)
 */
async function overlappingLabels(chart = '#chart', marks = ['roofLabels', 'ridgeLabels', 'l2Labels', 'dramLabels', 'regionLabels', 'pipelineLabels']): Promise<string[]> {
  return panelFrame()
    .locator(`${chart} svg`)
    .first()
    .evaluate((svg, marks) => {
      const boxes: { text: string; corners: { x: number; y: number }[] }[] = [];
      for (const el of svg.querySelectorAll<SVGTextElement>(marks.map((m) => `.role-mark.${m}_marks text`).join(', '))) {
        const b = el.getBBox();
        const m = el.getCTM();
        if (!m || !b.width) continue;
        const cells = [
          [b.x, b.y],
          [b.x + b.width, b.y],
          [b.x + b.width, b.y + b.height],
          [b.x, b.y + b.height],
        ];
        boxes.push({ text: el.textContent ?? '', corners: cells.map(([x, y]) => ({ x: m.a * x + m.c * y + m.e, y: m.b * x + m.d * y + m.f })) });
      }
      const out: string[] = [];
      for (let i = 0; i < boxes.length; i++)
        for (let j = i + 1; j < boxes.length; j++) {
          const a = boxes[i].corners;
          const c = boxes[j].corners;
          let apart = false;
          for (const poly of [a, c])
            for (let k = 0; k < 4 && !apart; k++) {
              const ax = poly[(k + 1) % 4].y - poly[k].y;
              const ay = poly[k].x - poly[(k + 1) % 4].x;
              const pa = a.map((p) => p.x * ax + p.y * ay);
              const pc = c.map((p) => p.x * ax + p.y * ay);
              if (Math.max(...pa) <= Math.min(...pc) || Math.max(...pc) <= Math.min(...pa)) apart = true;
            }
          if (!apart) out.push(`"${boxes[i].text}" / "${boxes[j].text}"`);
        }
      return boxes.length ? out : ['no labels drawn'];
    }, marks);
}

/** A screenshot of the panel, once its chart's labels are checked not to overlap. */
async function panelShot(file: string): Promise<void> {
  // A redraw (a resize, a theme) replaces the chart's SVG: wait until its labels are drawn again.
  let overlaps = await overlappingLabels();
  for (let i = 0; i < 50 && overlaps.length === 1 && overlaps[0] === 'no labels drawn'; i++) {
    await page.waitForTimeout(100);
    overlaps = await overlappingLabels();
  }
  assert.deepEqual(overlaps, [], `${file}: chart labels that overlap`);
  const box = await page.locator('iframe.webview.ready').first().boundingBox();
  assert.ok(box, 'the webview is visible');
  await page.screenshot({ path: `${SHOTS}/${file}`, clip: { x: box.x, y: box.y, width: box.width, height: Math.min(box.height, 900) } });
}

test('"Roofline: Show Roofline" opens the chart: roofs, a dot per kernel, the table', async () => {
  page.on('console', (m) => {
    if (/Content[- ]Security[- ]Policy|Refused to (apply|execute|load|evaluate)/i.test(m.text())) cspConsole.push(m.text());
  });
  // layers.py: add_kernel AI 1024 / 12288 = 0.0833, axpby_kernel 3072 / 12288 = 0.25, poly_kernel 6144 / 8192 = 0.75.
  await openFile('layers.py', 'poly_kernel');
  await lens('AI 0.75 FLOP/B');
  await runCommand('Roofline: Show Roofline');
  const frame = panelFrame();
  await frame.locator('#chart svg .role-mark.kernels_marks').waitFor({ timeout: 60_000 });
  for (const [name, ai] of [['add_kernel', '0.0833'], ['axpby_kernel', '0.25'], ['poly_kernel', '0.75']]) {
    await frame.locator(`#chart svg path[aria-label^="${name}: tile intensity ${ai} FLOP/B"]`).waitFor();
  }
  assert.equal(await frame.locator('#chart svg path[aria-label*=": tile intensity"]').count(), 3);
  // H100 SXM: fp8, fp16/bf16, tf32 tensor roofs, fp32 and fp64 vector roofs (fp64 tensor shares fp64 vector's peak), the L2 slope.
  assert.ok((await frame.locator('#chart svg .role-mark.roofs_marks path').count()) >= 5, 'roof lines');
  const labels = await frame.locator('#chart svg .role-mark.roofLabels_marks text').allTextContents();
  assert.ok(labels.some((l) => l.startsWith('tensor fp8')) && labels.some((l) => l.startsWith('vector fp32')), `roof labels: ${labels}`);
  assert.ok((await frame.locator('#chart svg .role-mark.ridgeLabels_marks text').allTextContents()).some((t) => t === 'ridge 20'), 'the fp32 ridge point is labelled');
  const row = frame.locator('#kernels tbody tr[data-kernel-id$=":add_kernel"]');
  assert.equal((await row.locator('th').innerText()).trim(), 'add_kernel');
  const cells = await row.locator('td').allInnerTexts();
  assert.equal(cells[1], '0.0833');
  assert.equal(cells[5], 'memory-bound (DRAM)');
  assert.equal(await frame.locator('#kernels thead th[scope="col"]').count(), 9);
  await panelShot('panel.png');
});

test('the pipeline view: where the time goes in launch(), its star on the chart, labels apart', async () => {
  const frame = panelFrame();
  // layers.py launch(): add 3.76 µs + axpby 3.76 µs + poly 2.5 µs (each 1024 programs, DRAM-bound on H100 SXM).
  await frame.locator('#pipeline-title', { hasText: 'Pipeline launch: where the time goes' }).waitFor();
  assert.match(await frame.locator('#pipeline-summary').innerText(), /^3 launches · 10\.5 MFLOP · 33\.6 MB compulsory → 0\.313 FLOP\/B · T_lower 10 µs/);
  await frame.locator('#pipeline-chart svg .role-mark.barLabels_marks text').first().waitFor();
  assert.equal(await frame.locator('#pipeline-launches tbody tr').count(), 3);
  await frame.locator('#chart svg .role-mark.pipelines_marks path[aria-label^="pipeline launch: intensity 0.313 FLOP/B"]').waitFor();
  assert.deepEqual(await overlappingLabels('#pipeline-chart', ['barLabels']), [], 'pipeline bar labels that overlap');
  await frame.locator('#pipeline').scrollIntoViewIfNeeded();
  await panelShot('panel-pipeline.png');
  await frame.locator('body').evaluate(() => window.scrollTo(0, 0));
});

test('clicking a column header sorts the table; clicking a dot selects its kernel and reveals it', async () => {
  const frame = panelFrame();
  await frame.locator('#kernels thead button#sort-ai').click();
  await frame.locator('#kernels thead button#sort-ai').click();
  const names = await frame.locator('#kernels tbody th').allInnerTexts();
  assert.deepEqual(names, ['poly_kernel', 'axpby_kernel', 'add_kernel']);
  assert.equal(await frame.locator('#kernels thead th:has(#sort-ai)').getAttribute('aria-sort'), 'descending');
  const before = Number((await frame.locator('body').getAttribute('data-renders')) ?? '0');
  await frame.locator('#chart svg path[aria-label^="axpby_kernel: tile"]').click({ force: true });
  await rendered(before);
  await frame.locator('#kernels tbody tr.selected[data-kernel-id$=":axpby_kernel"]').waitFor();
  await frame.locator('#whatif-body h3', { hasText: 'axpby_kernel' }).waitFor();
  // …and reveals it: the editor's cursor goes to its `def` line (20).
  await page.locator('.statusbar-item', { hasText: 'Ln 20, Col 1' }).first().waitFor();
});

test('the GPU picker redraws the roofs; "compare with" overlays a second GPU', async () => {
  const frame = panelFrame();
  const roofLabels = (): Promise<string[]> => frame.locator('#chart svg .role-mark.roofLabels_marks text').allTextContents();
  await frame.locator('select#gpu').selectOption('a100-sxm-80gb');
  // A100 SXM 80GB: fp32 19.5 TFLOP/s, DRAM 2.04 TB/s → ridge 9.56.
  await frame.locator('#title', { hasText: 'A100 SXM 80GB' }).waitFor();
  await frame.locator('#chart svg .role-mark.ridgeLabels_marks text', { hasText: 'ridge 9.56' }).first().waitFor();
  assert.ok((await roofLabels()).includes('vector fp32 19.5 TFLOP/s'), (await roofLabels()).join(' | '));
  await frame.locator('select#compare').selectOption('mi300x');
  await frame.locator('#chart svg .role-mark.roofLabels_marks text', { hasText: 'Instinct MI300X: ' }).first().waitFor();
  await frame.locator('select#compare').selectOption('');
  await frame.locator('select#gpu').selectOption('');
  await frame.locator('#title', { hasText: 'H100 SXM' }).waitFor();
});

test('what-if: a smaller element type moves the dot and shows the new formulas', async () => {
  const frame = panelFrame();
  await frame.locator('#kernels tbody tr[data-kernel-id$=":poly_kernel"] td').first().click();
  await frame.locator('#whatif-body h3', { hasText: 'poly_kernel' }).waitFor();
  const before = await dotTransform('poly_kernel: tile');
  const renders = Number((await frame.locator('body').getAttribute('data-renders')) ?? '0');
  // x_ptr as fp16: loads 1024 · 2 = 2048 B, stores 4096 B → AI 6144 / 6144 = 1.
  await frame.locator('select#whatif-x_ptr').selectOption('fp16');
  await rendered(renders);
  await frame.locator('#chart svg path[aria-label^="poly_kernel: tile intensity 1 FLOP/B"]').waitFor();
  const after = await dotTransform('poly_kernel: tile');
  assert.notEqual(after, before, 'the dot moved');
  const results = await frame.locator('#whatif-body table.results').innerText();
  assert.ok(results.includes('2.05 kB') && results.includes('was 4.1 kB'), results);
  // The stepper doubles BLOCK; the pragma names what changed.
  await frame.locator('#whatif-BLOCK-up').click();
  await frame.locator('#whatif-BLOCK', { hasText: '2048' }).waitFor();
  assert.equal((await frame.locator('#whatif-pragma').innerText()).trim(), '# roofline: BLOCK=2048');
  await panelShot('panel-whatif.png');
  await frame.locator('#whatif-reset').click();
});

test('the workspace view plots every kernel; Import profile… adds measured dots, regions and table columns', async () => {
  const frame = panelFrame();
  await frame.locator('#mode').click();
  // softmax.py, matmul.py (K bound by the "bind K" test), vector_add.cu, elementwise.wgsl, layers.py (three kernels), layers.cu (two),
  // pairs.wgsl (its #import read from the workspace).
  for (const name of ['softmax_kernel', 'matmul_kernel', 'vector_add', 'saxpy', 'add_kernel', 'axpby_kernel', 'poly_kernel', 'scale_by', 'add', 'combine_pairs']) {
    await frame.locator(`#chart svg path[aria-label^="${name}: tile intensity"]`).waitFor({ timeout: 60_000 });
  }
  assert.equal(await frame.locator('#kernels tbody tr').count(), 10);
  await frame.locator('#import-profile').click();
  // code-server's file dialog is a quick input holding a path. It fills in its starting folder and
  // completes what is typed asynchronously, so the path is typed again until it stays as typed.
  await page.locator('.quick-input-widget .quick-input-title', { hasText: 'Roofline: Import Profile' }).waitFor();
  const input = page.locator('.quick-input-widget input[type="text"]');
  const file = `${WS}/profile_h100.csv`;
  await until(async () => {
    await input.fill(file);
    await page.waitForTimeout(300);
    return (await input.inputValue()) === file;
  }, 'the dialog holds the typed path');
  await page.keyboard.press('Enter');
  // softmax_kernel: 33,560,000 B in 12.5 µs = 80.1 % of 3.35 TB/s; 12,578,816 FLOPs = ×0.75 the estimate (see the API suite).
  await frame.locator('#chart svg .role-mark.measured_marks path[aria-label^="softmax_kernel: measured 1.01 TFLOP/s at 0.375 FLOP/B, memory-bound"]').waitFor({ timeout: 60_000 });
  await frame.locator('#chart svg .role-mark.measured_marks path[aria-label^="vector_add: measured"]').waitFor();
  assert.ok((await frame.locator('#chart svg .role-mark.regionsOnRoof_marks path').count()) > 0, 'the regions are shaded');
  assert.match(await frame.locator('#profile-summary').innerText(), /^profile_h100\.csv \(ncu-raw\): 3 launches, 2 kernels matched\.$/);
  const cells = await frame.locator('#kernels tbody tr[data-kernel-id$=":softmax_kernel"] td').allInnerTexts();
  for (const part of ['1.01 TFLOP/s', '80.1 %', 'memory-bound', '×0.75', '×1.00']) assert.ok(cells.includes(part), `softmax row lacks ${part}: ${cells}`);
});

/** Runs a command by its exact palette label (Enter would run the first fuzzy match). */
async function commandByLabel(label: string): Promise<void> {
  await page.keyboard.press('F1');
  await page.locator('.quick-input-widget input[type="text"]').fill(`>${label}`);
  await page.locator(`.quick-input-list .monaco-list-row[aria-label^="${label}"]`).first().click();
}

/** Picks a color theme by its label (the picker also lists marketplace entries matching the words). */
async function colorTheme(label: string): Promise<void> {
  await commandByLabel('Preferences: Color Theme');
  await page.locator('.quick-input-widget input[type="text"]').fill(label);
  await page.locator(`.quick-input-list .monaco-list-row[aria-label^="${label}"]`).first().click();
}

/** After a theme change: waits for the chart drawn on the new background, checks the SVG carries it, takes a screenshot. */
async function themed(before: string, file: string): Promise<string> {
  const frame = panelFrame();
  await frame.locator(`body:not([data-background="${before}"])`).waitFor({ timeout: 30_000 });
  const background = (await frame.locator('body').getAttribute('data-background')) ?? '';
  // The drawn SVG holds real colours (no var(--vscode-…)), its background the theme's.
  const rgb = (hex: string): string => `rgb(${[1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16)).join(', ')})`;
  const drawn = await frame.locator('#chart svg').first().evaluate((svg) => (svg as SVGSVGElement).style.backgroundColor);
  assert.equal(drawn, rgb(background));
  assert.equal(await frame.locator('#chart svg [fill^="var("], #chart svg [stroke^="var("]').count(), 0);
  await panelShot(file);
  return background;
}

test('the chart follows the theme: light, dark and high-contrast screenshots', async () => {
  const frame = panelFrame();
  // A wider window for the screenshots (the page reports its new width and the chart grows), scrolled to the top.
  const renders = Number((await frame.locator('body').getAttribute('data-renders')) ?? '0');
  await page.setViewportSize({ width: 2300, height: 1050 });
  await rendered(renders);
  await frame.locator('body').evaluate(() => window.scrollTo(0, 0));
  const first = (await frame.locator('body').getAttribute('data-background')) ?? '';
  const light = ((await frame.locator('body').getAttribute('class')) ?? '').includes('vscode-light');
  await panelShot(light ? 'panel-light.png' : 'panel-dark.png');
  await colorTheme(light ? 'Dark Modern' : 'Light Modern');
  const second = await themed(first, light ? 'panel-dark.png' : 'panel-light.png');
  await colorTheme('Dark High Contrast');
  await themed(second, 'panel-high-contrast.png');
  await colorTheme(light ? 'Light Modern' : 'Dark Modern');
  await page.setViewportSize({ width: 1500, height: 950 });
});

test('at 1400×900, in the light and the dark theme, no two chart labels overlap', async () => {
  const frame = panelFrame();
  const renders = Number((await frame.locator('body').getAttribute('data-renders')) ?? '0');
  await page.setViewportSize({ width: 1400, height: 900 });
  // The page redraws when its width changes by 24 px or more.
  await rendered(renders).catch(() => undefined);
  await frame.locator('body').evaluate(() => window.scrollTo(0, 0));
  const first = (await frame.locator('body').getAttribute('data-background')) ?? '';
  const light = ((await frame.locator('body').getAttribute('class')) ?? '').includes('vscode-light');
  await panelShot(light ? 'panel-1400x900-light.png' : 'panel-1400x900-dark.png');
  await colorTheme(light ? 'Dark Modern' : 'Light Modern');
  await themed(first, light ? 'panel-1400x900-dark.png' : 'panel-1400x900-light.png');
  await colorTheme(light ? 'Light Modern' : 'Dark Modern');
  await page.setViewportSize({ width: 1500, height: 950 });
});

test('through all of the above, the page logged no Content-Security-Policy violation', async () => {
  assert.equal(await panelFrame().locator('body').getAttribute('data-csp-violations'), null);
  assert.deepEqual(cspConsole, []);
});

test('after a reload the panel comes back with its state', async () => {
  await page.reload();
  await page.locator('.monaco-workbench').waitFor();
  const frame = panelFrame();
  await frame
    .locator('#title', { hasText: 'Workspace: 10 kernels' })
    .waitFor({ timeout: 90_000 })
    .catch(async (e: Error) => {
      await page.screenshot({ path: `${SHOTS}/reload-failed.png` });
      throw e;
    });
  await frame.locator('#kernels tbody tr.selected[data-kernel-id$=":poly_kernel"]').waitFor();
  await frame.locator('#chart svg .role-mark.measured_marks path').first().waitFor();
});

/**
 * Pipelines in all three languages (issue 18): the lens above the host function, the hover with the
 * per-launch table and the fusion candidate, and the panel's pipeline view with the fusion checked.
 * layers.py launch(): add 3.76 µs + axpby 3.76 µs + poly 2.5 µs = 10 µs; add writes `out`, axpby reads it:
 *   fusing keeps 2 × 4.19 MB on chip → 7.51 µs (−25 %).
 * layers.cu forward(): 2 layers of scale_by (134.2 MB) → add (201.3 MB) at 3.35 TB/s = 200 µs; h on chip → −40 %.
 * passes.ts encodeLayers(): 2 layers of scale_shift (33.6 MB) → square_add (50.3 MB) = 50.1 µs; h on chip → −40 %.
 */
const PIPELINES = [
  { lang: 'triton', file: 'layers.py', text: 'def launch', fn: 'launch', lens: 'pipeline: 3 launches · T ≥ 10 µs on H100 SXM · 100 % of it memory-bound · fusing 1 pair saves up to 25 %', fusion: 'add_kernel → axpby_kernel' },
  { lang: 'cuda', file: 'layers.cu', text: 'void forward', fn: 'forward', lens: 'pipeline: 4 launches · T ≥ 200 µs on H100 SXM · 100 % of it memory-bound · fusing 1 pair saves up to 40 %', fusion: 'scale_by → add' },
  { lang: 'wgsl', file: 'passes.ts', text: 'function encodeLayers', fn: 'encodeLayers', lens: 'pipeline: 4 launches · T ≥ 50.1 µs on H100 SXM · 100 % of it memory-bound · fusing 1 pair saves up to 40 %', fusion: 'scale_shift → square_add' },
];

for (const p of PIPELINES) {
  test(`${p.lang} pipeline: the lens, the hover's per-launch table, the pipeline view with the fusion checked`, async () => {
    // Open the file in the editors' group, not beside the panel (which had the focus).
    await runCommand('View: Focus First Editor Group');
    await openFile(p.file, p.text);
    // The lens of this file (the previous file's lenses may linger while the editor switches).
    assert.equal(await lensText(p.lens), p.lens);
    const l = await lens(p.lens);
    await shot(`lens-pipeline-${p.lang}.png`);
    const text = await hoverToken(p.text, p.fn, 'T_lower');
    for (const part of [`pipeline ${p.fn}`, 'T_lower', 'share', `fusing ${p.fusion}`]) assert.ok(text.replace(/`/g, '').includes(part), `hover lacks "${part}":\n${text}`);
    await shot(`hover-pipeline-${p.lang}.png`, '.monaco-hover');
    await closeHover();
    // The first test after the reload may click while the revived panel is still starting: its click can be
    // lost, so click again until the pipeline view shows (3 tries).
    const frame = panelFrame();
    const title = frame.locator('#pipeline-title', { hasText: `Pipeline ${p.fn}: where the time goes` });
    for (let attempt = 1; ; attempt++) {
      await l.click();
      const shown = await title.waitFor({ timeout: 20_000 }).then(() => true, () => false);
      if (shown) break;
      if (attempt === 3) await title.waitFor({ timeout: 20_000 });
    }
    const box = frame.locator('#pipeline-fusion input[type="checkbox"]').first();
    await box.check();
    await frame.locator('#pipeline-fused', { hasText: 'With 1 pair fused' }).waitFor();
    assert.deepEqual(await overlappingLabels('#pipeline-chart', ['barLabels']), [], 'pipeline bar labels that overlap');
    await frame.locator('#pipeline').scrollIntoViewIfNeeded();
    await panelShot(`panel-pipeline-${p.lang}.png`);
    await box.uncheck();
    await frame.locator('body').evaluate(() => window.scrollTo(0, 0));
  });
}
