/**
 * Renders the Vega-Lite spec the extension sends: compiled to Vega here,
 * parsed to an AST and run by vega-interpreter, so no expression is ever
 * compiled with `new Function` (the webview's CSP forbids eval). Tooltips use
 * vega-tooltip without its injected <style> (media/panel.css styles them).
 * Clicking a kernel's dot (estimated or measured) reports its id.
 */
import { parse, View, type Item } from 'vega';
import { expressionInterpreter } from 'vega-interpreter';
import { compile, type TopLevelSpec } from 'vega-lite';
import { Handler } from 'vega-tooltip';

/** Expressions are parsed to an AST (`parse`) and evaluated by the interpreter (`View`): no code is generated. */
const NO_EVAL = { ast: true, expr: expressionInterpreter };

/** Marks whose items are kernels (the spec names each layer after its data set). */
const KERNEL_MARKS = new Set(['kernels_marks', 'measured_marks', 'steady_marks']);

export class ChartView {
  private view: View | undefined;
  private readonly tooltip = new Handler({ disableDefaultStyle: true, theme: 'vscode' });

  constructor(
    private readonly container: HTMLElement,
    private readonly onKernelClick: (id: string) => void,
  ) {}

  /** Replaces the chart with `spec`'s; resolves once it is drawn. */
  async render(spec: Record<string, unknown>): Promise<void> {
    const vega = compile(spec as unknown as TopLevelSpec).spec;
    this.view?.finalize();
    this.container.replaceChildren();
    const view = new View(parse(vega, undefined, NO_EVAL), {
      ...NO_EVAL,
      renderer: 'svg',
      container: this.container,
      hover: true,
      tooltip: this.tooltip.call,
    });
    this.view = view;
    view.addEventListener('click', (_event, item) => {
      const id = kernelIdOf(item);
      if (id !== undefined) this.onKernelClick(id);
    });
    await view.runAsync();
  }

  /** Removes the chart (a view that has nothing to draw). */
  clear(): void {
    this.view?.finalize();
    this.view = undefined;
    this.container.replaceChildren();
  }

  /** The chart as an SVG document, with the theme's colours written out. */
  svg(): Promise<string> {
    return this.current().toSVG();
  }

  /** The chart as a PNG data URL, at twice the screen resolution. */
  png(): Promise<string> {
    return this.current().toImageURL('png', 2);
  }

  private current(): View {
    if (!this.view) throw new Error('the chart has not been drawn yet');
    return this.view;
  }
}

function kernelIdOf(item: Item | null | undefined): string | undefined {
  const mark = item?.mark as { name?: string } | undefined;
  const datum = item?.datum as { id?: unknown } | undefined;
  return mark?.name && KERNEL_MARKS.has(mark.name) && typeof datum?.id === 'string' ? datum.id : undefined;
}
