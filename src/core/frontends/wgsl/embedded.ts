/**
 * WGSL embedded in JavaScript / TypeScript.
 *
 *   host source ──► tokens (jsLexer) ──► shaders: `createShaderModule({ code })`
 *                                        (a literal, or a const holding one),
 *                                        and literals marked `/* wgsl *\/` or
 *                                        tagged `wgsl\`…\``
 *                                    └─► dispatches: `dispatchWorkgroups(…)`,
 *                                        tied to a shader through
 *                                        `setPipeline` → `createComputePipeline`
 *
 * Compute shaders a function returns or a field / variable holds (hostfns.ts)
 * are analysed too, with a note.
 *
 * `${NAME}` interpolations are substituted when NAME is a const of the file
 * with a literal (or constant-arithmetic) value; an interpolation over
 * parameters of the function that builds the shader (`${wg_size}`) keeps them
 * as `override`s the user can bind; any other interpolation skips the shader
 * with a diagnostic. Every character of an extracted shader keeps its host
 * offset, so kernel lines are host lines.
 */
import type { Diagnostic } from '../../ir';
import { functionScopes, heldShaders, paramExpression, scopesAt, type FnScope } from './hostfns';
import { lexJs, type JsToken } from './jsLexer';
import { say } from '../../messages';

export interface EmbeddedShader {
  code: string;
  /** Host offset of each character of `code`. */
  offsets: number[];
  /** Offset of the literal in the host. */
  start: number;
  /** Variable the shader module is assigned to (`const module = device.createShaderModule(…)`). */
  moduleVar: string | undefined;
  /** Every `createShaderModule` call that takes this shader: its offset and the variable it is assigned to. */
  modules: { name: string | undefined; at: number }[];
  /** A shader imported from a file of its own (`import blurWGSL from './blur.wgsl'`): that path. Its lines are the call's. */
  imported?: string;
}

export interface Pipeline {
  name: string | undefined;
  moduleVar: string | undefined;
  /** Range of the pipeline descriptor, to find a shader module created inline. */
  start: number;
  end: number;
  entryPoint: string | undefined;
}

export interface Dispatch {
  grid: number[] | undefined;
  text: string;
  offset: number;
  pipeline: Pipeline | undefined;
  /** The last `setPipeline` argument before this dispatch, as written (`passes.norm`). */
  pipelineArg: string | undefined;
  /** Bind group index → the bind group set for it before this dispatch (`setBindGroup(0, bg)`), as written. */
  bindGroups: Map<number, string>;
}

/** A `for`/`while` loop of the host: its body's offsets and trip count when its header is constant. */
export interface HostLoop {
  start: number;
  end: number;
  /** Offset of the `for` / `while` keyword. */
  at: number;
  header: string;
  trips: number | undefined;
}

export interface HostScan {
  shaders: EmbeddedShader[];
  dispatches: Dispatch[];
  diagnostics: Diagnostic[];
  /** Bind groups by the expression they are assigned to (`bg`, `this.groups.norm`): binding → buffer expression. */
  bindGroups: Map<string, Map<number, string>>;
  loops: HostLoop[];
  /** The host's functions (pipelines are read per function). */
  scopes: FnScope[];
}

type JsValue = number | string | undefined;

/**
 * `imported`: the text of a shader the host imports by name (`import
 * blurWGSL from './blur.wgsl'`), when the host read it (src/core/related.ts).
 */
export function scanHost(src: string, lineOf: (offset: number) => number, imported: (name: string) => { path: string; text: string } | undefined = () => undefined): HostScan {
  const all = lexJs(src);
  const sig = all.filter((t) => t.kind !== 'comment');
  const scan = new HostScanner(src, all, sig, lineOf, imported);
  return scan.run();
}

class HostScanner {
  private readonly consts = new Map<string, JsToken[]>();
  private readonly diagnostics: Diagnostic[] = [];
  /** The host's functions, for shaders built by a function (hostfns.ts). */
  private scopes: FnScope[] = [];

  constructor(
    private readonly src: string,
    private readonly all: JsToken[],
    private readonly sig: JsToken[],
    private readonly lineOf: (offset: number) => number,
    private readonly imported: (name: string) => { path: string; text: string } | undefined,
  ) {}

  run(): HostScan {
    this.collectConsts();
    this.scopes = functionScopes(this.sig);
    const shaders = new Map<number, EmbeddedShader>();
    for (const [lit, moduleVar, at] of [...this.moduleLiterals(), ...this.markedLiterals()]) {
      const known = shaders.get(lit.start);
      if (known) {
        if (at !== undefined) known.modules.push({ name: moduleVar, at });
        known.moduleVar ??= moduleVar;
        continue;
      }
      const sh = this.extract(lit, moduleVar);
      if (!sh) continue;
      if (at !== undefined) sh.modules.push({ name: moduleVar, at });
      shaders.set(lit.start, sh);
    }
    // Compute shaders returned by a function or held in a field / variable, which reach
    // createShaderModule through a parameter: analysed as written, and said so.
    for (const h of heldShaders(this.sig, this.scopes)) {
      if (shaders.has(h.lit.start)) continue;
      const sh = this.extract(h.lit, undefined);
      if (!sh) continue;
      shaders.set(h.lit.start, sh);
      const line = this.lineOf(h.lit.start);
      this.diagnostics.push(h.how === 'function' ? say('shaderFromFunction', line, h.name ?? 'function') : say('shaderFromName', line, h.name ?? 'a value'));
    }
    // Shaders in files of their own, imported by name and passed as `code`.
    for (const [name, at, moduleVar] of this.importedModules()) {
      const f = this.imported(name);
      if (!f) continue;
      const known = [...shaders.values()].find((sh) => sh.imported === f.path);
      if (known) {
        known.modules.push({ name: moduleVar, at });
        known.moduleVar ??= moduleVar;
        continue;
      }
      shaders.set(at, { code: f.text, offsets: [], start: at, moduleVar, modules: [{ name: moduleVar, at }], imported: f.path });
    }
    const pipelines = this.pipelines();
    return {
      shaders: [...shaders.values()].sort((a, b) => a.start - b.start),
      dispatches: this.dispatches(pipelines),
      diagnostics: this.diagnostics,
      bindGroups: this.bindGroups(),
      loops: this.loops(),
      scopes: this.scopes,
    };
  }

  /** `const NAME = …;` declarations: their initialiser tokens. */
  private collectConsts(): void {
    const t = this.sig;
    for (let i = 0; i + 2 < t.length; i++) {
      if (t[i].text !== 'const' || t[i + 1].kind !== 'ident') continue;
      let j = i + 2;
      if (t[j]?.text === ':') j = this.skipTo(j, (x) => x.text === '=');
      if (t[j]?.text !== '=') continue;
      const end = this.statementEnd(j + 1);
      if (!this.consts.has(t[i + 1].text)) this.consts.set(t[i + 1].text, t.slice(j + 1, end));
    }
  }

  /** The index after an expression starting at `i`: a `;` or `,` at depth 0, or a new statement on a new line. */
  private statementEnd(i: number): number {
    const t = this.sig;
    let depth = 0;
    for (let k = i; k < t.length; k++) {
      const x = t[k];
      if (depth === 0 && (x.text === ';' || x.text === ',' || x.text === ')' || x.text === '}')) return k;
      if (x.text === '(' || x.text === '[' || x.text === '{') depth++;
      if (x.text === ')' || x.text === ']' || x.text === '}') depth--;
      if (depth === 0 && k > i && this.newLine(t[k - 1], x) && continuesNothing(t[k - 1], x)) return k;
    }
    return t.length;
  }

  private newLine(a: JsToken, b: JsToken): boolean {
    return this.src.slice(a.end, b.start).includes('\n');
  }

  private skipTo(i: number, pred: (t: JsToken) => boolean): number {
    let depth = 0;
    for (let k = i; k < this.sig.length; k++) {
      const x = this.sig[k];
      if (depth === 0 && pred(x)) return k;
      if (x.text === '(' || x.text === '[' || x.text === '{' || x.text === '<') depth++;
      if (x.text === ')' || x.text === ']' || x.text === '}' || x.text === '>') depth = Math.max(0, depth - 1);
      if (x.text === ';') return k;
    }
    return this.sig.length;
  }

  /** Index of the bracket closing the one at `i`. */
  private closing(i: number): number {
    let depth = 0;
    for (let k = i; k < this.sig.length; k++) {
      const x = this.sig[k].text;
      if (x === '(' || x === '[' || x === '{') depth++;
      if (x === ')' || x === ']' || x === '}') {
        depth--;
        if (depth === 0) return k;
      }
    }
    return this.sig.length - 1;
  }

  /** Literals passed as `code` to `createShaderModule`, with the module's variable and the call's offset. */
  private moduleLiterals(): [JsToken, string | undefined, number | undefined][] {
    const out: [JsToken, string | undefined, number | undefined][] = [];
    const t = this.sig;
    for (let i = 0; i + 2 < t.length; i++) {
      if (t[i].text !== 'createShaderModule' || t[i + 1].text !== '(' || t[i + 2].text !== '{') continue;
      const value = this.property(i + 2, 'code');
      if (!value) continue;
      const lit = this.literalOf(value);
      if (lit) out.push([lit, this.assignedName(i), t[i].start]);
      else if (!(value.kind === 'ident' && this.imported(value.text))) this.diagnostics.push(say('unresolvedCode', this.lineOf(value.start), value.text));
    }
    return out;
  }

  /** `createShaderModule({ code: NAME })` with NAME a name the host imports: [NAME, the call's offset, the module's variable]. */
  private importedModules(): [string, number, string | undefined][] {
    const out: [string, number, string | undefined][] = [];
    const t = this.sig;
    for (let i = 0; i + 2 < t.length; i++) {
      if (t[i].text !== 'createShaderModule' || t[i + 1].text !== '(' || t[i + 2].text !== '{') continue;
      const value = this.property(i + 2, 'code');
      if (value?.kind === 'ident' && !this.literalOf(value) && this.imported(value.text)) out.push([value.text, t[i].start, this.assignedName(i)]);
    }
    return out;
  }

  /** Template literals marked `/* wgsl *\/` or tagged `wgsl`. */
  private markedLiterals(): [JsToken, string | undefined, number | undefined][] {
    const out: [JsToken, string | undefined, number | undefined][] = [];
    this.all.forEach((tok, i) => {
      if (tok.kind !== 'template' || i === 0) return;
      const prev = this.all[i - 1];
      const marked = prev.kind === 'comment' && prev.text.startsWith('/*') && prev.text.slice(2, -2).trim().toLowerCase() === 'wgsl';
      const tagged = prev.kind === 'ident' && prev.text === 'wgsl';
      if (marked || tagged) out.push([tok, undefined, undefined]);
    });
    return out;
  }

  /** The value token of `name: value` (or the shorthand `name`) in the object literal opening at `open`. */
  private property(open: number, name: string): JsToken | undefined {
    const close = this.closing(open);
    let depth = 0;
    for (let k = open + 1; k < close; k++) {
      const x = this.sig[k];
      if (x.text === '(' || x.text === '[' || x.text === '{') depth++;
      if (x.text === ')' || x.text === ']' || x.text === '}') depth--;
      if (depth !== 0 || x.text !== name || (this.sig[k - 1].text !== ',' && k !== open + 1)) continue;
      const after = this.sig[k + 1];
      if (after?.text === ':') return this.sig[k + 2];
      if (after?.text === ',' || after?.text === '}') return x;
    }
    return undefined;
  }

  /** A string or template literal (possibly tagged `wgsl`), directly or through a const of the file. */
  private literalOf(tok: JsToken): JsToken | undefined {
    if (tok.kind === 'template' || tok.kind === 'string') return tok;
    if (tok.kind !== 'ident') return undefined;
    const init = this.consts.get(tok.text) ?? [];
    const lit = init[init.length - 1];
    const tagged = init.length === 2 && init[0].text === 'wgsl';
    if ((init.length === 1 || tagged) && (lit.kind === 'template' || lit.kind === 'string')) return lit;
    return undefined;
  }

  /** The variable a call's result is assigned to: `const NAME = [await] a.b.call(`. */
  private assignedName(callIdx: number): string | undefined {
    return this.assignedTarget(callIdx)?.split('.').pop();
  }

  /** The expression a call's result is assigned to, member chains included: `this.groups.norm = device.createBindGroup(`. */
  private assignedTarget(callIdx: number): string | undefined {
    let k = callIdx - 1;
    while (k >= 1 && (this.sig[k].text === '.' || this.sig[k].text === '?.') && this.sig[k - 1].kind === 'ident') k -= 2;
    if (this.sig[k]?.text === 'await') k--;
    if (this.sig[k]?.text !== '=') return undefined;
    let j = k - 1;
    if (this.sig[j]?.kind !== 'ident') j = this.typeAnnotationStart(j);
    if (this.sig[j]?.kind !== 'ident') return undefined;
    const end = j;
    while (j >= 2 && this.sig[j - 1].text === '.' && this.sig[j - 2].kind === 'ident') j -= 2;
    return this.sig.slice(j, end + 1).map((x) => x.text).join('');
  }

  /** The tokens from `a` up to (not including) `b`, joined without spaces: an expression as written. */
  private textOf(a: number, b: number): string {
    return this.sig.slice(a, b).map((x) => x.text).join('');
  }

  /** Skips back over a TypeScript annotation `name: Type =` to the name. */
  private typeAnnotationStart(k: number): number {
    for (let j = k; j >= 1 && k - j < 8; j--) if (this.sig[j].text === ':' && this.sig[j - 1].kind === 'ident') return j - 1;
    return k;
  }

  private extract(lit: JsToken, moduleVar: string | undefined): EmbeddedShader | undefined {
    if (lit.kind === 'string') return { code: lit.value ?? '', offsets: lit.offsets ?? [], start: lit.start, moduleVar, modules: [] };
    let code = '';
    const offsets: number[] = [];
    // Parameters kept as symbols: the override each becomes, and where it is first used.
    const params = new Map<string, { symbol: string; at: number; expr: string }>();
    const written = (lit.parts ?? []).map((p) => (p.kind === 'text' ? p.cooked : ' ')).join('');
    const parts = lit.parts ?? [];
    let skip = 0;
    for (const [k, p] of parts.entries()) {
      if (p.kind === 'text') {
        code += p.cooked.slice(skip);
        offsets.push(...p.offsets.slice(skip));
        skip = 0;
        continue;
      }
      const expr = this.src.slice(p.start + 2, p.end - 1).trim();
      const v = this.evaluate(p.tokens, new Set());
      let text = v === undefined ? undefined : String(v);
      if (text === undefined) {
        const e = this.overParams(p.tokens, lit.start);
        if (e) {
          for (const n of e.names) if (!params.has(n)) params.set(n, { symbol: overrideName(written, n, params), at: p.start, expr });
          text = e.text.replace(/[A-Za-z_]\w*/g, (n) => params.get(n)?.symbol ?? n);
          // A literal suffix written after the interpolation (`${n}u`) becomes a conversion: `u32(n)`.
          const next = parts[k + 1];
          const suffix = next?.kind === 'text' ? /^([uif])(?![\w])/.exec(next.cooked)?.[1] : undefined;
          if (suffix) {
            text = `${suffix}32(${text})`;
            skip = 1;
          }
        }
      }
      if (text === undefined) {
        this.diagnostics.push(say('interpolation', this.lineOf(p.start), expr));
        return undefined;
      }
      code += text;
      for (let i = 0; i < text.length; i++) offsets.push(p.start);
    }
    for (const [name, { symbol, at, expr }] of params) {
      const decl = `\noverride ${symbol}: u32${this.paramDefault(name, lit.start)};`;
      code += decl;
      for (let i = 0; i < decl.length; i++) offsets.push(at);
      this.diagnostics.push(say('interpolationParam', this.lineOf(at), expr, name, symbol));
    }
    return { code, offsets, start: lit.start, moduleVar, modules: [] };
  }

  /** An interpolation over parameters of the functions around the literal, as a WGSL expression. */
  private overParams(tokens: JsToken[], at: number): { text: string; names: string[] } | undefined {
    const scopes = scopesAt(this.scopes, at);
    if (scopes.length === 0) return undefined;
    const isParam = (n: string) => scopes.some((s) => s.params.has(n));
    const constValue = (n: string) => {
      const v = this.constValue(n, new Set());
      return typeof v === 'number' ? v : undefined;
    };
    return paramExpression(tokens, isParam, constValue);
  }

  /** ` = 64u` when the parameter has a constant default (`(wg = 64) => …`), else nothing. */
  private paramDefault(name: string, at: number): string {
    const dflt = scopesAt(this.scopes, at)
      .map((s) => s.params.get(name))
      .find((d) => d !== undefined);
    const v = dflt ? this.evaluate(dflt, new Set()) : undefined;
    return typeof v === 'number' && Number.isInteger(v) && v >= 0 ? ` = ${v}u` : '';
  }

  private pipelines(): Pipeline[] {
    const out: Pipeline[] = [];
    const t = this.sig;
    for (let i = 0; i + 2 < t.length; i++) {
      if (!(t[i].text === 'createComputePipeline' || t[i].text === 'createComputePipelineAsync') || t[i + 1].text !== '(') continue;
      const close = this.closing(i + 1);
      let moduleVar: string | undefined;
      let entryPoint: string | undefined;
      for (let k = i + 2; k < close; k++) {
        if (t[k].text === 'module' && t[k + 1]?.text === ':' && t[k + 2]?.kind === 'ident' && t[k + 3]?.text !== '.') moduleVar = t[k + 2].text;
        if (t[k].text === 'module' && (t[k + 1]?.text === ',' || t[k + 1]?.text === '}') && (t[k - 1].text === '{' || t[k - 1].text === ',')) moduleVar = 'module';
        if (t[k].text === 'entryPoint' && t[k + 1]?.text === ':' && t[k + 2]?.kind === 'string') entryPoint = t[k + 2].value;
      }
      out.push({ name: this.assignedName(i), moduleVar, start: t[i].start, end: t[close]?.end ?? t[i].end, entryPoint });
    }
    return out;
  }

  private dispatches(pipelines: Pipeline[]): Dispatch[] {
    const out: Dispatch[] = [];
    const t = this.sig;
    let current: Pipeline | undefined;
    let currentArg: string | undefined;
    const groups = new Map<number, string>();
    for (let i = 0; i + 1 < t.length; i++) {
      if (t[i].text === 'setPipeline' && t[i + 1].text === '(') {
        // `setPipeline(p)`, `setPipeline(this.passes.norm)`: the pipeline by the last name of the chain.
        const close = this.closing(i + 1);
        currentArg = this.textOf(i + 2, close);
        const last = t[close - 1];
        current = last?.kind === 'ident' ? pipelines.find((p) => p.name === last.text) : undefined;
      }
      if (t[i].text === 'setBindGroup' && t[i + 1].text === '(') {
        const close = this.closing(i + 1);
        const args = splitArgs(t.slice(i + 2, close));
        const index = args[0] ? this.evaluate(args[0], new Set()) : undefined;
        if (typeof index === 'number' && args[1]?.length) groups.set(index, args[1].map((x) => x.text).join(''));
      }
      if (t[i].text !== 'dispatchWorkgroups' || t[i + 1].text !== '(') continue;
      const close = this.closing(i + 1);
      const args = splitArgs(t.slice(i + 2, close));
      const values = args.map((a) => this.evaluate(a, new Set()));
      const grid = values.every((v) => typeof v === 'number') ? (values as number[]) : undefined;
      out.push({ grid, text: this.src.slice(t[i + 1].end, t[close]?.start ?? t[i + 1].end), offset: t[i].start, pipeline: current, pipelineArg: currentArg, bindGroups: new Map(groups) });
    }
    return out;
  }

  /** `X = device.createBindGroup({ …, entries: [{ binding: 0, resource: { buffer: buf } }, …] })`: binding → buffer, by X. */
  private bindGroups(): Map<string, Map<number, string>> {
    const out = new Map<string, Map<number, string>>();
    const t = this.sig;
    for (let i = 0; i + 1 < t.length; i++) {
      if (t[i].text !== 'createBindGroup' || t[i + 1].text !== '(') continue;
      const name = this.assignedTarget(i);
      const close = this.closing(i + 1);
      const entries = new Map<number, string>();
      for (let k = i + 2; k < close; k++) {
        if (t[k].text !== 'binding' || t[k + 1]?.text !== ':' || t[k + 2]?.kind !== 'number') continue;
        const binding = Number(t[k + 2].text);
        // The resource of the same entry object: `resource: { buffer: X }` or `resource: X`.
        let depth = 0;
        for (let r = k + 3; r < close; r++) {
          const x = t[r].text;
          if (x === '(' || x === '[' || x === '{') depth++;
          if (x === ')' || x === ']' || x === '}') depth--;
          if (depth < 0) break;
          if (depth !== 0 || x !== 'resource' || t[r + 1]?.text !== ':') continue;
          let v = r + 2;
          if (t[v]?.text === '{') {
            const end = this.closing(v);
            const b = t.slice(v + 1, end).findIndex((y, n, a) => y.text === 'buffer' && a[n + 1]?.text === ':');
            if (b < 0) break;
            v = v + 1 + b + 2;
          }
          const end = this.statementEnd(v);
          if (end > v) entries.set(binding, this.textOf(v, end));
          break;
        }
      }
      if (name && entries.size > 0) out.set(name, entries);
    }
    return out;
  }

  /**
   * The host's `for` and `while` loops: body offsets and, for `for (let i = A; i < B; i++)`
   * (or `+= S`, `<=`) over constants of the file and `for (const x of [a, b, c])`, the trip count.
   */
  private loops(): HostLoop[] {
    const out: HostLoop[] = [];
    const t = this.sig;
    for (let i = 0; i + 1 < t.length; i++) {
      if ((t[i].text !== 'for' && t[i].text !== 'while') || t[i + 1].text !== '(' || t[i].kind !== 'ident') continue;
      const close = this.closing(i + 1);
      const bodyStart = close + 1;
      const bodyEnd = t[bodyStart]?.text === '{' ? this.closing(bodyStart) : this.statementEnd(bodyStart);
      const trips = t[i].text === 'for' ? this.forTrips(t.slice(i + 2, close)) : undefined;
      out.push({ start: t[bodyStart]?.start ?? t[close].end, end: t[Math.min(bodyEnd, t.length - 1)]?.end ?? t[close].end, at: t[i].start, header: this.src.slice(t[i].start, t[close]?.end ?? t[i].end), trips });
    }
    return out;
  }

  private forTrips(h: JsToken[]): number | undefined {
    // for (const x of [a, b, c]) / for (const x of NAME) with NAME a const array literal
    const of = h.findIndex((x) => x.text === 'of');
    if (of > 0) {
      let arr = h.slice(of + 1);
      if (arr.length === 1 && arr[0].kind === 'ident') arr = this.consts.get(arr[0].text) ?? [];
      if (arr[0]?.text !== '[' || arr[arr.length - 1]?.text !== ']') return undefined;
      const inner = arr.slice(1, -1);
      return inner.length === 0 ? 0 : splitArgs(inner).filter((a) => a.length > 0).length;
    }
    const parts: JsToken[][] = [[]];
    let depth = 0;
    for (const x of h) {
      if (x.text === '(' || x.text === '[' || x.text === '{') depth++;
      if (x.text === ')' || x.text === ']' || x.text === '}') depth--;
      if (depth === 0 && x.text === ';') parts.push([]);
      else parts[parts.length - 1].push(x);
    }
    if (parts.length !== 3) return undefined;
    const [init, cond, step] = parts;
    const decl = init[0]?.text === 'let' || init[0]?.text === 'var' ? init.slice(1) : init;
    const v = decl[0]?.kind === 'ident' ? decl[0].text : undefined;
    if (!v || decl[1]?.text !== '=' || cond[0]?.text !== v || !['<', '<='].includes(cond[1]?.text ?? '')) return undefined;
    const lo = this.evaluate(decl.slice(2), new Set());
    const hi = this.evaluate(cond.slice(2), new Set());
    let s: JsValue;
    if ((step.length === 2 && step[0].text === v && step[1].text === '++') || (step.length === 2 && step[0].text === '++' && step[1].text === v)) s = 1;
    else if (step[0]?.text === v && step[1]?.text === '+=') s = this.evaluate(step.slice(2), new Set());
    if (typeof lo !== 'number' || typeof hi !== 'number' || typeof s !== 'number' || s <= 0) return undefined;
    const span = hi - lo + (cond[1].text === '<=' ? 1 : 0);
    return Math.max(0, Math.ceil(span / s));
  }

  // -------------------------------------------------------------------------
  // Constant evaluation: literals, consts of the file, + − * / % **, shifts, `|`, Math.*.

  private evaluate(tokens: JsToken[], seen: Set<string>): JsValue {
    const toks = stripTypeSuffix(tokens);
    const p = new ConstParser(toks, (name) => this.constValue(name, seen));
    const v = p.parse();
    return p.done() ? v : undefined;
  }

  private constValue(name: string, seen: Set<string>): JsValue {
    const init = this.consts.get(name);
    if (!init || seen.has(name)) return undefined;
    seen.add(name);
    const v = this.evaluate(init, seen);
    seen.delete(name);
    return v;
  }
}

/** Whether a line break between `a` and `b` cannot be inside one expression. */
function continuesNothing(a: JsToken, b: JsToken): boolean {
  const binary = new Set(['+', '-', '*', '/', '%', '**', '(', '[', '{', ',', '=', '?', ':', '&&', '||', '??', '|', '&', '<<', '>>', '.']);
  return !binary.has(a.text) && !binary.has(b.text) && b.text !== '?.';
}

function splitArgs(tokens: JsToken[]): JsToken[][] {
  const out: JsToken[][] = [];
  let cur: JsToken[] = [];
  let depth = 0;
  for (const t of tokens) {
    if (t.text === '(' || t.text === '[' || t.text === '{') depth++;
    if (t.text === ')' || t.text === ']' || t.text === '}') depth--;
    if (depth === 0 && t.text === ',') {
      out.push(cur);
      cur = [];
    } else cur.push(t);
  }
  if (cur.length) out.push(cur);
  return out;
}

/** Drops a TypeScript `as const` / `as number` / `!` suffix. */
function stripTypeSuffix(tokens: JsToken[]): JsToken[] {
  const asAt = tokens.findIndex((t, i) => t.text === 'as' && i > 0);
  const cut = asAt > 0 ? tokens.slice(0, asAt) : tokens;
  return cut.length > 1 && cut[cut.length - 1].text === '!' ? cut.slice(0, -1) : cut;
}

const MATH: Record<string, (...a: number[]) => number> = {
  ceil: Math.ceil,
  floor: Math.floor,
  round: Math.round,
  trunc: Math.trunc,
  min: Math.min,
  max: Math.max,
  abs: Math.abs,
  sqrt: Math.sqrt,
  log2: Math.log2,
  pow: Math.pow,
};

/** Recursive descent over a token slice; any token it does not know makes the value undefined. */
class ConstParser {
  private i = 0;
  private depth = 0;

  /** Nesting (parentheses, signs, powers) past this gives no value, rather than exhausting the stack. */
  private static readonly MAX_DEPTH = 100;

  constructor(
    private readonly t: JsToken[],
    private readonly lookup: (name: string) => JsValue,
  ) {}

  done(): boolean {
    return this.i === this.t.length;
  }

  parse(): JsValue {
    return this.nested(() => this.binary(0));
  }

  private nested(f: () => JsValue): JsValue {
    if (this.depth >= ConstParser.MAX_DEPTH) {
      this.i = this.t.length;
      return undefined;
    }
    this.depth++;
    try {
      return f();
    } finally {
      this.depth--;
    }
  }

  private static readonly LEVELS: string[][] = [['|'], ['^'], ['&'], ['<<', '>>', '>>>'], ['+', '-'], ['*', '/', '%']];

  private binary(level: number): JsValue {
    if (level >= ConstParser.LEVELS.length) return this.power();
    let left = this.binary(level + 1);
    while (this.i < this.t.length && ConstParser.LEVELS[level].includes(this.t[this.i].text)) {
      const op = this.t[this.i++].text;
      left = applyOp(op, left, this.binary(level + 1));
    }
    return left;
  }

  private power(): JsValue {
    const base = this.unary();
    if (this.t[this.i]?.text !== '**') return base;
    this.i++;
    const exp = this.nested(() => this.power());
    return typeof base === 'number' && typeof exp === 'number' ? base ** exp : undefined;
  }

  private unary(): JsValue {
    const op = this.t[this.i]?.text;
    if (op === '-' || op === '+') {
      this.i++;
      const v = this.nested(() => this.unary());
      return typeof v === 'number' ? (op === '-' ? -v : v) : undefined;
    }
    return this.primary();
  }

  private primary(): JsValue {
    const tok = this.t[this.i++];
    if (!tok) return undefined;
    if (tok.kind === 'number') return Number(tok.text.replace(/_/g, '').replace(/n$/, ''));
    if (tok.kind === 'string') return tok.value;
    if (tok.kind === 'template') return tok.parts?.length === 1 && tok.parts[0].kind === 'text' ? tok.parts[0].cooked : undefined;
    if (tok.text === '(') {
      const v = this.parse();
      return this.t[this.i++]?.text === ')' ? v : undefined;
    }
    if (tok.kind !== 'ident') return undefined;
    if (tok.text === 'Math' && this.t[this.i]?.text === '.') return this.math();
    return this.lookup(tok.text);
  }

  private math(): JsValue {
    const fn = MATH[this.t[this.i + 1]?.text ?? ''];
    if (!fn || this.t[this.i + 2]?.text !== '(') return undefined;
    this.i += 3;
    const args: number[] = [];
    while (this.i < this.t.length && this.t[this.i].text !== ')') {
      const v = this.parse();
      if (typeof v !== 'number') return undefined;
      args.push(v);
      if (this.t[this.i]?.text === ',') this.i++;
    }
    this.i++;
    return fn(...args);
  }
}

function applyOp(op: string, a: JsValue, b: JsValue): JsValue {
  if (op === '+' && (typeof a === 'string' || typeof b === 'string')) return a === undefined || b === undefined ? undefined : String(a) + String(b);
  if (typeof a !== 'number' || typeof b !== 'number') return undefined;
  switch (op) {
    case '+':
      return a + b;
    case '-':
      return a - b;
    case '*':
      return a * b;
    case '/':
      return a / b;
    case '%':
      return a % b;
    case '|':
      return a | b;
    case '^':
      return a ^ b;
    case '&':
      return a & b;
    case '<<':
      return a << b;
    case '>>':
      return a >> b;
    default:
      return a >>> b;
  }
}

/**
 * The shader a compute pipeline is built from (index into `shaders`): one whose
 * `createShaderModule` call sits in the pipeline's descriptor, or the shader
 * written inline there, or the module variable it names — the nearest module
 * of that name created before the pipeline (two functions may both call theirs
 * `module`). -1 when none.
 */
export function shaderOfPipeline(p: Pipeline, shaders: EmbeddedShader[]): number {
  const inside = shaders.findIndex((sh) => sh.modules.some((m) => m.at > p.start && m.at < p.end) || (sh.start > p.start && sh.start < p.end));
  if (inside >= 0 || p.moduleVar === undefined) return inside;
  const named: { i: number; at: number }[] = [];
  shaders.forEach((sh, i) => {
    for (const m of sh.modules) if (m.name === p.moduleVar) named.push({ i, at: m.at });
    if (sh.modules.length === 0 && sh.moduleVar === p.moduleVar) named.push({ i, at: sh.start });
  });
  const before = named.filter((c) => c.at < p.start).sort((x, y) => y.at - x.at);
  const after = named.filter((c) => c.at >= p.start).sort((x, y) => x.at - y.at);
  const best = before[0] ?? after[0];
  return best ? best.i : -1;
}

/** Whether a compute pipeline is built from this shader. */
export function pipelineUses(p: Pipeline, shader: EmbeddedShader, shaders: EmbeddedShader[]): boolean {
  const i = shaderOfPipeline(p, shaders);
  return i >= 0 && shaders[i] === shader;
}

/** The dispatch of one kernel: through its pipeline, or the file's only dispatch when there is one kernel. */
export function dispatchFor(scan: HostScan, shader: EmbeddedShader, entry: string, kernelCount: number): Dispatch | undefined {
  const matches = scan.dispatches.filter((d) => {
    const p = d.pipeline;
    return p !== undefined && pipelineUses(p, shader, scan.shaders) && (p.entryPoint === undefined || p.entryPoint === entry);
  });
  if (matches.length > 0) return matches[0];
  return kernelCount === 1 && scan.dispatches.length === 1 ? scan.dispatches[0] : undefined;
}

/**
 * The override a parameter kept as a symbol becomes: its own name, or
 * `NAME_param` when the shader declares that name itself
 * (`const wg_size: u32 = ${wg_size};`).
 */
function overrideName(written: string, name: string, taken: Map<string, { symbol: string }>): string {
  const declares = (n: string) => new RegExp(`\\b(?:let|const|override|fn|struct|alias)\\s+${n}\\b|\\bvar(?:<[^>]*>)?\\s+${n}\\b`).test(written);
  const used = (n: string) => [...taken.values()].some((t) => t.symbol === n);
  let symbol = name;
  if (declares(symbol)) symbol = `${name}_param`;
  while (declares(symbol) || used(symbol)) symbol += '_';
  return symbol;
}
