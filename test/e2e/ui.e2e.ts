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

/** The first CodeLens whose text contains `text` (the first lens waits for the extension host to start). */
async function lens(text: string) {
  const l = page.locator('.monaco-editor .codelens-decoration a, .monaco-editor .codelens-decoration span', { hasText: text }).first();
  await l.waitFor({ timeout: 90_000 });
  return l;
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
  const l = await lens('AI 0.5 FLOP/B');
  assert.equal((await l.innerText()).trim(), SOFTMAX_LENS);
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
  const l = await lens('per block');
  assert.match((await l.innerText()).trim(), /^AI 0\.0833 FLOP\/B · memory-bound \(DRAM\) · H100 SXM · 256 FLOP \/ 3\.07 kB per block$/);
  await shot('lens-cuda.png');
});

test('WGSL: the kernel lens is per workgroup', async () => {
  await openFile('elementwise.wgsl', '@compute');
  const l = await lens('per workgroup');
  assert.match((await l.innerText()).trim(), /^AI 0\.167 FLOP\/B · memory-bound \(DRAM\) · H100 SXM · 128 FLOP \/ 768 B per workgroup$/);
  await shot('lens-wgsl.png');
});

test('clicking "bind K" asks for a value and the lens follows', async () => {
  await openFile('matmul.py', 'matmul_kernel');
  await (await lens('AI ? · bind K')).click();
  const input = page.locator('.quick-input-widget input[type="text"]');
  await input.waitFor();
  await input.fill('4096');
  await page.keyboard.press('Enter');
  await page.locator('.quick-input-list .monaco-list-row', { hasText: 'Workspace folder settings' }).first().waitFor();
  await page.locator('.quick-input-list .monaco-list-row', { hasText: 'Workspace folder settings' }).first().click();
  await lens('134 MFLOP');
  await lens('loop: 64 trips');
  await shot('lens-bind-k.png');
});

test('"Roofline: Show Roofline" opens the panel with the kernel table', async () => {
  await openFile('softmax.py', 'softmax_kernel');
  await runCommand('Roofline: Show Roofline');
  // webview = outer <iframe class="webview ready"> (host page) → inner <iframe id="active-frame"> (our HTML)
  const inner = page.frameLocator('iframe.webview.ready').frameLocator('#active-frame');
  const row = inner.locator('#kernels tr#kernel-softmax_kernel');
  await row.waitFor({ timeout: 60_000 });
  const cells = await row.locator('td').allInnerTexts();
  assert.equal(cells[0], 'softmax_kernel');
  assert.equal(cells[2], '0.5');
  assert.equal(cells[4], 'memory-bound (DRAM)');
  await page.screenshot({ path: `${SHOTS}/panel.png` });
});
