/**
 * The chart's colours from the VS Code theme. `var(--vscode-*)` cannot go
 * into the spec (a canvas draws it black and an exported image keeps the
 * `var()` text), so the page reads each variable's current value and sends
 * real colours; it reads them again when the theme changes.
 */
import type { ChartTheme } from '../core/report/chart';

/** For each colour of the chart, the theme variables to try in order, then a neutral fallback. */
export const THEME_SOURCES: Record<keyof ChartTheme, { vars: readonly string[]; fallback: string }> = {
  foreground: { vars: ['--vscode-editor-foreground', '--vscode-foreground'], fallback: '#333333' },
  background: { vars: ['--vscode-editor-background'], fallback: '#ffffff' },
  grid: { vars: ['--vscode-editorIndentGuide-background1', '--vscode-editorIndentGuide-background', '--vscode-panel-border'], fallback: '#e5e5e5' },
  memory: { vars: ['--vscode-charts-red'], fallback: '#d1495b' },
  compute: { vars: ['--vscode-charts-blue'], fallback: '#2e86ab' },
  unknown: { vars: ['--vscode-disabledForeground', '--vscode-descriptionForeground'], fallback: '#888888' },
  roof: { vars: ['--vscode-editor-foreground', '--vscode-foreground'], fallback: '#444444' },
  compareRoof: { vars: ['--vscode-charts-purple'], fallback: '#b07aa1' },
  l2: { vars: ['--vscode-descriptionForeground'], fallback: '#8c8c8c' },
  font: { vars: ['--vscode-font-family'], fallback: 'sans-serif' },
};

/** The theme, given a reader of CSS custom properties (getComputedStyle(...).getPropertyValue). */
export function readTheme(read: (cssVariable: string) => string): ChartTheme {
  const out = {} as ChartTheme;
  for (const [key, source] of Object.entries(THEME_SOURCES) as [keyof ChartTheme, (typeof THEME_SOURCES)[keyof ChartTheme]][]) {
    const found = source.vars.map((v) => read(v).trim()).find((v) => v !== '');
    out[key] = found ?? source.fallback;
  }
  return out;
}
