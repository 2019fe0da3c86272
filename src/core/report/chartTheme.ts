/**
 * The chart's colours and font: the page reads them from the VS Code theme
 * (src/webview/theme.ts) and the spec builders (chart.ts, pipelineView.ts)
 * write them into their specs; the defaults are for the CLI and the tests.
 */
export interface ChartTheme {
  foreground: string;
  background: string;
  grid: string;
  memory: string;
  compute: string;
  unknown: string;
  roof: string;
  compareRoof: string;
  l2: string;
  font: string;
}

export const DEFAULT_THEME: ChartTheme = {
  foreground: '#333333',
  background: '#ffffff',
  grid: '#e5e5e5',
  memory: '#d1495b',
  compute: '#2e86ab',
  unknown: '#888888',
  roof: '#444444',
  compareRoof: '#b07aa1',
  l2: '#8c8c8c',
  font: 'sans-serif',
};
