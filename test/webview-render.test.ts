/**
 * The page's rendering path, headless: the spec the panel builds (theme
 * colours, measured dots and the four regions, a second GPU) compiled by
 * Vega-Lite and run by Vega with expressions parsed to an AST and evaluated
 * by vega-interpreter, exactly as src/webview/chartView.ts does under the
 * webview's CSP. And the theme reader that feeds the spec its colours.
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { gpuSummary } from '../src/core/analyze';
import { findGpu } from '../src/core/gpus/catalog';
import { attachProfile } from '../src/core/profile/attach';
import { chartKernels, rooflineSpec, type ChartTheme } from '../src/core/report/chart';
import { readTheme, THEME_SOURCES } from '../src/webview/theme';
import { analyzeFile } from './check';

const WS = path.join(__dirname, 'e2e', 'workspace');
const DARK: ChartTheme = {
  foreground: '#cccccc',
  background: '#1f1f1f',
  grid: '#404040',
  memory: '#f14c4c',
  compute: '#3794ff',
  unknown: '#858585',
  roof: '#cccccc',
  compareRoof: '#b180d7',
  l2: '#9d9d9d',
  font: 'system-ui, sans-serif',
};

/** As ChartView.render: compile, parse with `ast: true`, run with the interpreter; SVG out. */
async function renderLikeThePage(spec: Record<string, unknown>): Promise<string> {
  const { compile } = await import('vega-lite');
  const { parse, View } = await import('vega');
  const { expressionInterpreter } = await import('vega-interpreter');
  const noEval = { ast: true, expr: expressionInterpreter };
  const view = new View(parse(compile(spec as never).spec, undefined, noEval), { ...noEval, renderer: 'none' });
  await view.runAsync();
  const svg = await view.toSVG();
  view.finalize();
  return svg;
}

describe('webview rendering through vega-interpreter', () => {
  it('draws the panel spec with measured dots, regions and a second GPU, in the theme colours only', async () => {
    const files = [await analyzeFile(path.join(WS, 'softmax.py')), await analyzeFile(path.join(WS, 'layers.py')), await analyzeFile(path.join(WS, 'vector_add.cu'))];
    const gpu = findGpu('h100-sxm')!;
    const text = fs.readFileSync(path.join(WS, 'profile_h100.csv'), 'utf8');
    const measured = attachProfile(files, gpuSummary(gpu), text).files;
    const kernels = chartKernels(measured);
    const spec = rooflineSpec(kernels, { gpu, compareGpu: findGpu('mi300x')!, showRegions: true, theme: DARK, selectedId: kernels[0].id, width: 700, height: 420 });
    const svg = await renderLikeThePage(spec);
    for (const part of [
      'softmax_kernel: tile intensity 0.5 FLOP/B',
      'poly_kernel: tile intensity 0.75 FLOP/B',
      'vector_add: tile intensity 0.0833 FLOP/B',
      'softmax_kernel: measured 1.01 TFLOP/s at 0.375 FLOP/B, memory-bound',
      'H100 SXM: DRAM 3.35 TB/s',
      'Instinct MI300X: DRAM 5.3 TB/s',
      'memory-intensive',
      'role-mark kernels_marks',
      'role-mark measured_marks',
    ])
      assert.ok(svg.includes(part), `the SVG lacks "${part}"`);
    // Every colour in the drawing comes from the theme: no default black text on a dark background.
    const allowed = new Set([...Object.values(DARK).map((c) => c.toLowerCase()), 'none', 'transparent']);
    const used = new Set([...svg.matchAll(/(?:fill|stroke)="([^"]+)"/g)].map((m) => m[1].toLowerCase()));
    const foreign = [...used].filter((c) => !allowed.has(c));
    assert.deepEqual(foreign, [], 'colours not from the theme');
    assert.ok(!svg.includes('var('), 'no CSS variables in the drawing');
  });
});

describe('webview theme reader', () => {
  it('takes the first variable that has a value, else the fallback', () => {
    const vars: Record<string, string> = {
      '--vscode-foreground': ' #cccccc ',
      '--vscode-editor-background': '#1f1f1f',
      '--vscode-charts-red': '#f14c4c',
      '--vscode-panel-border': '#2b2b2b',
      '--vscode-font-family': 'system-ui',
    };
    const theme = readTheme((v) => vars[v] ?? '');
    assert.equal(theme.foreground, '#cccccc', 'editor foreground missing: the workbench foreground, trimmed');
    assert.equal(theme.background, '#1f1f1f');
    assert.equal(theme.memory, '#f14c4c');
    assert.equal(theme.grid, '#2b2b2b', 'the last variable of the chain');
    assert.equal(theme.compute, THEME_SOURCES.compute.fallback);
    assert.equal(theme.font, 'system-ui');
  });

  it('every chart colour has a source', () => {
    assert.deepEqual(Object.keys(THEME_SOURCES).sort(), Object.keys(DARK).sort());
  });
});
