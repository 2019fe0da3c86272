/**
 * What a symbol name looks like, as the core prints it and as a binding (the
 * `rooflineLens.bindings` setting, **Bind Symbol…**, a what-if control from
 * the panel) may name it. Shared by the extension and the page, so no core,
 * no `vscode`, no DOM.
 */

/** A symbol as the core names it: `K`, `blockDim.x`, `tl.num_programs(0)`, `arrayLength(p.items)`. */
const SYMBOL_NAME = /^[A-Za-z_][\w.]*(\([^()\s]*\))?$/;

export function isSymbolName(name: string): boolean {
  return name.length <= 200 && SYMBOL_NAME.test(name);
}
