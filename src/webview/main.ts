/**
 * The roofline page (bundled to dist/webview.js). It owns no analysis: the
 * extension sends a render model (the Vega-Lite spec, the table, the what-if
 * controls) and the page draws it, reports clicks and choices back, keeps
 * the state for a reload (setState), reads the theme's colours and sends them
 * again when the theme changes, and exports the chart on request.
 */
import { parsePipelineView, type ExportFormat, type HostMessage, type PageMessage, type RenderMessage } from '../shared/panelProtocol';
import type { SortState } from '../shared/table';
import { ChartView } from './chartView';
import { byId, renderControls, renderPipeline, renderProfile, renderTable, renderWhatIf } from './dom';
import { readTheme } from './theme';

interface VsCodeApi {
  postMessage(msg: PageMessage): void;
  setState(state: unknown): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

const api = acquireVsCodeApi();
const post = (msg: PageMessage): void => api.postMessage(msg);

let model: RenderMessage | undefined;
let sort: SortState | null = null;
let renders = 0;
/** Renders and exports run one after the other, in the order the extension sent them. */
let queue: Promise<void> = Promise.resolve();

const chart = new ChartView(byId('chart'), (id) => post({ type: 'select', id, reveal: true }));
/** The pipeline view's stacked bar (drawn only when the view has a pipeline). */
const pipelineChart = new ChartView(byId('pipeline-chart'), () => undefined);

function theme(): ReturnType<typeof readTheme> {
  const style = getComputedStyle(document.documentElement);
  return readTheme((v) => style.getPropertyValue(v));
}

function problem(kind: 'csp' | 'render', e: unknown): void {
  post({ type: 'problem', kind, message: String((e as Error)?.message ?? e).slice(0, 1000) });
}

async function draw(m: RenderMessage): Promise<void> {
  model = m;
  sort = m.state.sort ?? null;
  api.setState(m.state);
  renderControls(m);
  renderProfile(m.profile, post);
  renderWhatIf(m.whatIf, post);
  // The pipeline view is checked here too: a model of the wrong shape shows no view rather than half of one.
  const pipeline = parsePipelineView(m.pipeline);
  renderPipeline(pipeline, post);
  drawTable();
  await chart.render(m.spec);
  if (pipeline) await pipelineChart.render(pipeline.spec);
  else pipelineChart.clear();
  renders++;
  document.body.dataset.renders = String(renders);
  document.body.dataset.background = String((m.spec.background as string | undefined) ?? '');
}

function drawTable(): void {
  if (!model) return;
  renderTable({ model: model.table, sort, selectedId: model.state.selectedId }, sortBy, post);
}

function sortBy(s: SortState): void {
  sort = s;
  if (model) api.setState({ ...model.state, sort: s });
  post({ type: 'sort', sort: s });
  drawTable();
  byId('status').textContent = `Sorted by ${model?.table.columns.find((c) => c.key === s.column)?.label ?? s.column}, ${s.descending ? 'descending' : 'ascending'}.`;
}

async function exportChart(format: ExportFormat, requestId: number): Promise<void> {
  const data = format === 'svg' ? await chart.svg() : await chart.png();
  post({ type: 'exported', format, data, requestId });
}

function enqueue(job: () => Promise<void>): void {
  queue = queue.then(job).catch((e) => problem('render', e));
}

window.addEventListener('message', (event: MessageEvent<HostMessage>) => {
  const msg = event.data;
  if (msg?.type === 'render') enqueue(() => draw(msg));
  else if (msg?.type === 'export') enqueue(() => exportChart(msg.format, msg.requestId));
});

// ---- controls ---------------------------------------------------------------------------

byId<HTMLSelectElement>('gpu').addEventListener('change', (e) => post({ type: 'gpu', id: (e.target as HTMLSelectElement).value }));
byId<HTMLSelectElement>('compare').addEventListener('change', (e) => post({ type: 'compare', id: (e.target as HTMLSelectElement).value }));
byId('precisions').addEventListener('change', () => {
  const keys = [...byId('precisions').querySelectorAll<HTMLInputElement>('input:checked')].map((i) => i.value);
  post({ type: 'precisions', keys: keys as never });
});
byId('mode').addEventListener('click', () => post({ type: 'mode', mode: model?.state.mode === 'workspace' ? 'file' : 'workspace' }));
byId('import-profile').addEventListener('click', () => post({ type: 'importProfile' }));
byId('clear-profile').addEventListener('click', () => post({ type: 'clearProfile' }));
byId<HTMLInputElement>('per-launch').addEventListener('change', (e) => post({ type: 'perLaunch', on: (e.target as HTMLInputElement).checked }));
byId('export-svg').addEventListener('click', () => enqueue(() => exportChart('svg', 0)));
byId('export-png').addEventListener('click', () => enqueue(() => exportChart('png', 0)));
byId('copy-markdown').addEventListener('click', () => post({ type: 'copyTable', format: 'markdown' }));
byId('copy-tsv').addEventListener('click', () => post({ type: 'copyTable', format: 'tsv' }));
byId<HTMLSelectElement>('pipeline-select').addEventListener('change', (e) => post({ type: 'pipeline', id: (e.target as HTMLSelectElement).value }));

// ---- theme, size, problems --------------------------------------------------------------

let lastTheme = JSON.stringify(theme());
const themeChanged = (): void => {
  const t = theme();
  const json = JSON.stringify(t);
  if (json === lastTheme) return;
  lastTheme = json;
  post({ type: 'theme', theme: t });
};
// VS Code switches the body's class (vscode-light, vscode-dark, vscode-high-contrast) and the variables on <html>.
new MutationObserver(themeChanged).observe(document.body, { attributes: true, attributeFilter: ['class', 'data-vscode-theme-id'] });
new MutationObserver(themeChanged).observe(document.documentElement, { attributes: true, attributeFilter: ['style'] });

let lastWidth = document.body.clientWidth;
let resizeTimer: ReturnType<typeof setTimeout> | undefined;
new ResizeObserver(() => {
  if (resizeTimer !== undefined) clearTimeout(resizeTimer);
  resizeTimer = setTimeout(() => {
    const width = document.body.clientWidth;
    if (Math.abs(width - lastWidth) < 24) return;
    lastWidth = width;
    post({ type: 'size', width });
  }, 200);
}).observe(document.body);

let violations = 0;
document.addEventListener('securitypolicyviolation', (e) => {
  violations++;
  document.body.dataset.cspViolations = String(violations);
  problem('csp', `${e.violatedDirective} blocked ${e.blockedURI || 'inline content'}`);
});
window.addEventListener('error', (e) => problem('render', e.message));

post({ type: 'ready', theme: JSON.parse(lastTheme), width: lastWidth });
