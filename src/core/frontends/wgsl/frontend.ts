/**
 * The WGSL frontend.
 *
 *   .wgsl file ─────────────────────────────┐
 *   .js/.ts file ──► embedded shaders ──────┼──► wesl parse ──► module scan
 *                    (+ dispatchWorkgroups) │       └─► per @compute entry: walk ──► KernelIR
 *                                           └──► syntax errors: diagnostics, and the last
 *                                                good analysis of functions that no longer parse
 *
 * Never throws: anything it cannot read becomes a diagnostic.
 */
import { hash53 } from '../../hash';
import { parseSrcModule, type WeslAST } from 'wesl/core';
import { detached } from '../../detach';
import { keepLatest } from '../common';
import { KernelCache, movable, runKernels } from '../../engine/driver';
import { lineBefore, saysLineWords, unanswered, type Deps, type RowEdit } from '../../deps';
import { textFrame } from '../../parsers';
import type { Frontend, FrontendContext } from '../../frontend';
import type { Diagnostic, FileIR, KernelIR } from '../../ir';
import { say } from '../../messages';
import { forgetMissing, remember, staleKernels } from './cache';
import { dispatchFor, pipelineUses, scanHost, type Dispatch, type EmbeddedShader, type HostScan } from './embedded';
import { encoderPipelines } from './encoder';
import { analyzeEntry } from './kernel';
import { JS_WGSL_IMPORT, MAX_RELATED, WGSL_IMPORT, relatedRequests } from '../../related';
import { scanModule, type ModuleInfo } from './module';

const HOST_FILE = /\.(m?js|cjs|jsx|ts|mts|cts|tsx)$/i;

/** One shader to analyse: a whole `.wgsl` file, or a literal embedded in a host file. */
interface Shader {
  code: string;
  lineOf: (offset: number) => number;
  embedded: EmbeddedShader | undefined;
  /** Entry points at or beyond this offset come from imported files: not kernels of this file. */
  own?: number;
}

export const wgslFrontend: Frontend = (ctx) => {
  const path = ctx.path ?? '<input>';
  const lines = lineStarts(ctx.source);
  const hostLine = (offset: number) => lineAt(lines, offset);
  const out: FileIR = { language: 'wgsl', kernels: [], diagnostics: [] };
  const scan = HOST_FILE.test(path) ? hostScanOf(ctx, path, hostLine) : undefined;
  if (scan) out.diagnostics.push(...scan.diagnostics);
  const shaders: Shader[] = scan ? scan.shaders.map((sh) => embeddedShader(sh, hostLine)) : [withImports(ctx, hostLine, out.diagnostics)];
  const parsed = parsedShaders(path, shaders, out.diagnostics);
  const modules = parsed.map((p) => (p.ast ? scanModule(p.ast) : undefined));
  const kernelCount = modules.reduce((n, m) => n + (m?.entries.length ?? 0), 0);
  // One launch of a pipeline (src/core/pipeline/): only the shader and entry point of the dispatch at that line, with its size.
  const launch = ctx.user.launch;
  const launched = launch && scan ? scan.dispatches.find((d) => hostLine(d.offset) === launch.line) : undefined;
  if (launch && !launched) return out;
  let broken = false;
  parsed.forEach(({ sh, ast }, i) => {
    const mod = modules[i];
    if (launched && !(launched.pipeline && sh.embedded && scan && pipelineUses(launched.pipeline, sh.embedded, scan.shaders))) return;
    if (!ast || !mod) {
      broken = true;
      return;
    }
    // A shader in a file of its own is that file's kernels: here only the launches of a pipeline analyse it.
    if (sh.embedded?.imported && !launched) return;
    const dispatch = (entry: string) =>
      launched ? launchDetail(launched, hostLine, out) : scan && sh.embedded ? dispatchDetail(scan, sh.embedded, entry, kernelCount, hostLine, out) : undefined;
    const own = mod.entries.filter((f) => sh.own === undefined || f.start < sh.own);
    const kept = analyzeShader(ctx, ast, { ...mod, entries: launched ? own.filter((f) => f.name.ident.originalName === launch!.kernel) : own }, sh.lineOf, out, dispatch);
    if (!launched) for (const k of kept) remember(path, k);
    broken ||= ast.diagnostics.some((d) => d.severity === 'error');
  });
  if (launch) return out;
  if (scan) {
    const embedded = shaders.map((sh) => sh.embedded!);
    const pipelines = encoderPipelines(scan, embedded, modules, hostLine);
    if (pipelines.length) out.pipelines = pipelines;
  }
  const present = new Set(out.kernels.map((k) => k.name));
  if (broken) out.kernels.push(...staleKernels(path, present, ctx.source));
  // Only a whole analysis tells a kernel gone (one in time slices lists the kernels analysed so far).
  else if (!out.incomplete) forgetMissing(path, present);
  if (out.kernels.length === 0 && !out.diagnostics.some((d) => d.severity !== 'info')) {
    const defs = (ctx.source.match(/@compute\b/g) ?? []).length;
    out.diagnostics.push(defs > 0 ? say('kernelsNotFound', 1, 'WGSL', `${defs} \`@compute\` function(s)`) : say('noKernels', 1, 'WGSL @compute'));
  }
  return out;
};

/**
 * Per host document, its last scan, by its text and the related files given
 * with it (the same object): each launch of its pipelines analyses the file
 * again (src/core/analyze.ts), and a large host file with many pipelines
 * was scanned once per launch. One version of each document.
 */
const hostScans = new Map<string, { source: string; related: FrontendContext['related']; scan: HostScan }>();

/** Documents whose host scans are kept at most (the least recently analysed dropped). */
const MAX_HOST_SCANS = 16;

/** Host scans made (tests). */
export const wgslHostScanStats = { scans: 0 };

function hostScanOf(ctx: FrontendContext, path: string, hostLine: (offset: number) => number): HostScan {
  const kept = hostScans.get(path);
  const entry = kept && kept.source === ctx.source && kept.related === ctx.related ? kept : { source: ctx.source, related: ctx.related, scan: scanHostNow(ctx, hostLine) };
  return keepLatest(hostScans, path, entry, MAX_HOST_SCANS).scan;
}

function scanHostNow(ctx: FrontendContext, hostLine: (offset: number) => number): HostScan {
  wgslHostScanStats.scans++;
  return scanHost(ctx.source, hostLine, importedShaders(ctx));
}

/**
 * A `.wgsl` file with its `#import` lines (vello, naga_oil) blanked — the
 * parser would stop at them — and the text of each imported file the host
 * supplied appended after it (its offsets map to the `#import` line). An
 * import without a text is said; its types and functions stay unknown.
 */
function withImports(ctx: FrontendContext, hostLine: (offset: number) => number, diags: Diagnostic[]): Shader {
  const src = ctx.source;
  const conditional = src.includes('#if');
  if (!src.includes('#import') && !conditional) return { code: src, lineOf: hostLine, embedded: undefined };
  const defined = definedNames(ctx);
  const requests = relatedRequests('wgsl', src);
  const read = (text: string, line: (row: number) => number | undefined): string => withoutImports(resolveDefines(text, defined, line, diags));
  // An imported file is the same text at every keystroke (and says nothing at its own lines): read once.
  const definedKey = [...defined].sort().join(',');
  const readImported = (text: string): string => {
    const kept = importedRead.get(definedKey);
    if (kept?.text === text) return kept.out;
    const out = read(text, () => undefined);
    importedRead.set(definedKey, { text, out });
    if (importedRead.size > MAX_RELATED) importedRead.delete(importedRead.keys().next().value as string);
    return out;
  };
  let code = read(src, (row) => row + 1);
  const own = code.length;
  const at: { from: number; line: number }[] = [];
  const seen = new Set<string>();
  const append = (spec: string, line: number, depth: number): void => {
    const r = ctx.related?.[spec];
    if (!r || seen.has(spec) || seen.size >= MAX_RELATED) return;
    seen.add(spec);
    // An imported file's own imports come first (they define what it uses), one level deep.
    if (depth === 0) for (const inner of relatedRequests('wgsl', r.text)) append(inner.spec, line, 1);
    at.push({ from: code.length, line });
    // An imported file's conditionals are said at the `#import` (once per name, as its own).
    code += '\n' + readImported(r.text);
  };
  for (const q of requests) {
    if (ctx.related?.[q.spec]) append(q.spec, q.line, 0);
    else diags.push(say('importNotRead', q.line, q.spec, ctx.related ? q.candidates.join(', ') : ''));
  }
  const lineOf = (offset: number): number => {
    // The own text's end too (a function that ends the file, with no line end after it).
    if (offset <= own) return hostLine(offset);
    let line = at[0]?.line ?? 1;
    for (const a of at) if (offset >= a.from) line = a.line;
    return line;
  };
  return { code, lineOf, embedded: undefined, own };
}

/** The last text of an imported file read, per set of names defined, and what reading it gave. */
const importedRead = new Map<string, { text: string; out: string }>();

/** A line made spaces (its `\r` kept). */
function blankLine(l: string): string {
  return l.endsWith('\r') ? `${' '.repeat(l.length - 1)}\r` : ' '.repeat(l.length);
}

/** A text with its `#import` lines blanked (places kept). */
function withoutImports(text: string): string {
  if (!text.includes('#import')) return text;
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) if (lines[i].includes('#import') && WGSL_IMPORT.test(lines[i].replace(/\r$/, ''))) lines[i] = blankLine(lines[i]);
  return lines.join('\n');
}

/** The names `#ifdef` takes as defined: a `--set`/settings or pragma value other than 0 or false. */
function definedNames(ctx: FrontendContext): Set<string> {
  const out = new Set<string>();
  const on = (v: unknown) => v !== 0 && v !== false && v !== '0' && v !== 'false';
  for (const [name, v] of Object.entries(ctx.user.set)) if (on(v)) out.add(name);
  for (const p of ctx.pragmas) if (on(p.value)) out.add(p.name);
  return out;
}

/** `#ifdef NAME`, `#ifndef NAME`, `#else`, `#endif` lines (naga_oil's and vello's shader preprocessor). */
const DEFINE_DIRECTIVE = /^[ \t]*#(ifdef|ifndef|else|endif)\b[ \t]*([A-Za-z_]\w*)?/;

/**
 * A shader with the conditionals of its preprocessor (vello, naga_oil:
 * `#ifdef msaa` … `#else` … `#endif`) resolved as a build that defines the
 * names `defined` holds and no other: the directive lines and the lines of
 * the branches not taken blanked (places and lines kept). WGSL has no such
 * directives: the parser stopped at each (a syntax error in the kernels that
 * hold one). Each name is said once (`line(row)`, undefined: not said):
 * which branch is read and how to read the other. A conditional that is not
 * closed, or an `#if` with an expression, is left as written.
 */
function resolveDefines(text: string, defined: ReadonlySet<string>, line: (row: number) => number | undefined, diags: Diagnostic[]): string {
  if (!text.includes('#if')) return text;
  const lines = text.split('\n');
  const out = [...lines];
  const stack: { active: boolean; taken: boolean; row: number }[] = [];
  const said = new Set<string>();
  const notes: Diagnostic[] = [];
  // Branches open that are not read (a line is read when none is).
  let inactive = 0;
  for (let row = 0; row < lines.length; row++) {
    const m = lines[row].includes('#') ? DEFINE_DIRECTIVE.exec(lines[row]) : null;
    if (!m) {
      if (inactive) out[row] = blankLine(lines[row]);
      continue;
    }
    const [, kind, name] = m;
    if (kind === 'ifdef' || kind === 'ifndef') {
      if (!name) return text;
      const on = defined.has(name) === (kind === 'ifdef');
      stack.push({ active: on, taken: on, row });
      if (!on) inactive++;
      const at = line(row);
      if (at !== undefined && !said.has(name)) {
        said.add(name);
        notes.push(say('shaderDefine', at, name, defined.has(name)));
      }
    } else if (kind === 'else') {
      const top = stack[stack.length - 1];
      if (!top) return text;
      if (!top.active) inactive--;
      top.active = !top.taken;
      top.taken = true;
      if (!top.active) inactive++;
    } else {
      const top = stack.pop();
      if (!top) return text;
      if (!top.active) inactive--;
    }
    out[row] = blankLine(lines[row]);
  }
  if (stack.length) return text;
  diags.push(...notes);
  return out.join('\n');
}

/** The shaders a host imports by name (`import blurWGSL from './blur.wgsl'`) that the host read. */
function importedShaders(ctx: FrontendContext): (name: string) => { path: string; text: string } | undefined {
  const related = ctx.related;
  if (!related || !ctx.source.includes('.wgsl')) return () => undefined;
  const byName = new Map<string, string>();
  for (const l of ctx.source.split('\n')) {
    const m = l.includes('.wgsl') ? JS_WGSL_IMPORT.exec(l) : null;
    if (m && related[m[2]]) byName.set(m[1], m[2]);
  }
  return (name) => {
    const spec = byName.get(name);
    return spec ? related[spec] : undefined;
  };
}

/** An embedded shader whose offsets map to host lines. */
function embeddedShader(sh: EmbeddedShader, hostLine: (offset: number) => number): Shader {
  const last = sh.offsets.length - 1;
  return { code: sh.code, lineOf: (i) => hostLine(sh.offsets[Math.min(Math.max(0, i), last)] ?? sh.start), embedded: sh };
}

/**
 * Analyses one shader's entry points into `out`. Returns the kernels whose
 * functions have no syntax error (the ones worth remembering as last good).
 */
function analyzeShader(
  ctx: FrontendContext,
  ast: WeslAST,
  mod: ModuleInfo,
  lineOf: (offset: number) => number,
  out: FileIR,
  dispatch: (entry: string) => { grid: number[]; detail: string } | undefined,
): KernelIR[] {
  for (const d of ast.diagnostics) {
    const dg = say('parseError', lineOf(d.start), d.message);
    out.diagnostics.push(d.severity === 'error' ? { ...dg, severity: 'error' } : dg);
  }
  const errors = ast.diagnostics.filter((d) => d.severity === 'error');
  // The lines of the errors: an entry point that holds one is incomplete (analyze.ts).
  if (errors.length) out.syntaxErrors = [...new Set([...(out.syntaxErrors ?? []), ...errors.map((d) => lineOf(d.start))])].sort((a, b) => a - b);
  // An entry point's reads of the module are its context (declarations it names, with their lines) and its own
  // line: answered again on the next version, also as they were before an edit (an Enter above it moves it).
  const contextOf = entryContexts(ast, mod, lineOf);
  const r = runKernels(
    ctx,
    cache,
    'wgsl',
    'workgroup',
    mod.entries.map((fn) => {
      const name = fn.name.ident.originalName;
      const d = dispatch(name);
      return {
        key: [ast.srcModule.src.slice(fn.start, fn.end), ctx.path ?? '', JSON.stringify(d ?? null)].join('\0'),
        deps: { root: ast, fingerprint: (_: Deps, edit?: RowEdit) => [contextOf(fn, edit), lineBefore(lineOf(fn.start), edit)] },
        name,
        line: lineOf(fn.name.start),
        range: { startLine: lineOf(fn.start) - 1, endLine: lineOf(fn.end) - 1 },
        run: () => analyzeEntry({ ctx, mod, fn, lineOf, dispatch: d }),
      };
    }),
    movable(ctx) ? textFrame(`wgsl:${ctx.path ?? '<input>'}`, ctx.source) : undefined,
  );
  out.kernels.push(...r.kernels);
  out.diagnostics.push(...r.diagnostics);
  if (r.incomplete) {
    const prev = out.incomplete ?? { analysed: 0, total: 0 };
    out.incomplete = { analysed: prev.analysed + r.incomplete.analysed, total: prev.total + r.incomplete.total };
  }
  // Kernels of functions with no syntax error are the ones worth remembering as the last good analysis.
  return r.kernels.filter((k) => {
    const fn = mod.entries.find((f) => f.name.ident.originalName === k.name);
    return !k.failed && !k.truncated && fn && !errors.some((d) => d.start >= fn.start && d.start <= fn.end);
  });
}

/**
 * Analysed entry points by everything they depend on: their own text and first
 * line, the rest of the module (declarations, helpers), the user's inputs and
 * the dispatch. An edit re-analyses only the entry points it touched.
 */
const cache = new KernelCache();

/** Forgets a document's last good kernels (shown stale while a function does not parse). */
export function forgetWgslFile(path: string): void {
  forgetMissing(path);
}

export function clearWgslCache(): void {
  cache.clear();
  parses.clear();
  hostScans.clear();
}

/**
 * What an entry point's analysis reads besides its own text, as a hash: the
 * module-scope declarations it names, and those they name in turn (found by
 * the words of their texts: a superset, so never stale), each with its line
 * (bindings name the lines of consts and overrides), and every unnamed
 * module element (directives, `const_assert`). An edit elsewhere in the
 * module — another entry point, a helper or a constant it does not use —
 * leaves the entry point's analysis cached.
 */
function entryContexts(ast: WeslAST, mod: ModuleInfo, lineOf: (offset: number) => number): (fn: { start: number; end: number }, edit?: RowEdit) => string {
  const src = ast.srcModule.src;
  const named = new Map<string, { start: number; end: number }[]>();
  const add = (name: string, e: { start: number; end: number }) => named.set(name, [...(named.get(name) ?? []), e]);
  for (const m of [mod.structs, mod.aliases, mod.consts, mod.overrides, mod.globals, mod.fns] as Map<string, { start: number; end: number }>[]) for (const [n, e] of m) add(n, e);
  const namedSpans = new Set([...named.values()].flat().map((e) => e.start));
  const unnamed = ast.moduleElem.decls
    .map((d) => d as { start?: number; end?: number })
    .filter((d): d is { start: number; end: number } => typeof d.start === 'number' && typeof d.end === 'number' && !namedSpans.has(d.start))
    .map((d) => ({ line: lineOf(d.start), text: src.slice(d.start, d.end) }));
  // A declaration's words and hash, found once for every entry point that reaches it, and kept by its text
  // for the next version of the file (most declarations are the same text at the next keystroke).
  const seenAt = new Map<number, Declaration>();
  const decl = (e: { start: number; end: number }): Declaration => {
    let d = seenAt.get(e.start);
    if (!d) seenAt.set(e.start, (d = declaration(src.slice(e.start, e.end))));
    return d;
  };
  const words = (e: { start: number; end: number }): string[] => decl(e).words;
  // With an edit: lines as they were before it (rows the edit touched never answer the same).
  const text = (e: { start: number; end: number }, edit: RowEdit | undefined) => `${lineBefore(lineOf(e.start), edit)}:${decl(e).hash}`;
  // The declarations an entry point reaches, found once per entry point (answered with and without an edit).
  const reachOf = new Map<number, { reached: [string, { start: number; end: number }][]; says: boolean }>();
  const reach = (fn: { start: number; end: number }) => {
    let r = reachOf.get(fn.start);
    if (r) return r;
    const seen = new Set<string>();
    r = { reached: [], says: decl(fn).saysLine };
    const queue = [words(fn)];
    while (queue.length) {
      for (const w of queue.pop()!) {
        if (seen.has(w)) continue;
        seen.add(w);
        for (const e of named.get(w) ?? []) {
          if (e.start === fn.start) continue;
          r.reached.push([w, e]);
          r.says ||= decl(e).saysLine;
          queue.push(words(e));
        }
      }
    }
    reachOf.set(fn.start, r);
    return r;
  };
  return (fn, edit) => {
    const { reached, says } = reach(fn);
    const parts = reached.map(([w, e]) => `${w}@${text(e, edit)}`);
    const all = `${parts.sort().join('\u0001')}\u0002${unnamed.map((u) => `${lineBefore(u.line, edit)}:${declaration(u.text).hash}`).join('\u0001')}`;
    // A kernel moved by an edit has "line N" in its notes moved too: not one that read such words (engine/shift.ts).
    if (edit && (says || unnamed.some((u) => declaration(u.text).saysLine))) return unanswered();
    return hash53(all);
  };
}

interface Declaration {
  words: string[];
  hash: string;
  /** Whether its text says "line N" (`saysLineWords`). */
  saysLine: boolean;
}

/** Declarations by text, kept across versions of a file (bounded; what each holds depends on the text alone). */
const declarations = new Map<string, Declaration>();

function declaration(text: string): Declaration {
  let d = declarations.get(text);
  if (!d) {
    if (declarations.size >= 8192) declarations.clear();
    // Kept across versions: its key and words are copies of their own, not views into this version's text (detach.ts).
    const words = [...new Set(text.match(/[A-Za-z_]\w*/g))].map(detached);
    declarations.set(detached(text), (d = { words, hash: hash53(text), saysLine: saysLineWords(text) }));
  }
  return d;
}

/**
 * Per document, its shaders parsed by the last analysis, by their text: an
 * analysis in time slices calls again with the same text (each call
 * analyses more entry points), as does a pipeline's launch, and wesl parses
 * a module from scratch every time. One version of each document.
 */
const parses = new Map<string, Map<string, WeslAST>>();
/** Documents whose parses are kept at most (the least recently analysed dropped). */
const MAX_PARSED_DOCUMENTS = 16;

/** Parses a document's shaders through `parse`, keeping what it parsed for its next analysis. */
function parsedShaders(path: string, shaders: Shader[], diags: Diagnostic[]): { sh: Shader; ast: WeslAST | undefined }[] {
  const known = parses.get(path);
  const now = new Map<string, WeslAST>();
  const out = shaders.map((sh) => {
    const ast = known?.get(sh.code) ?? now.get(sh.code) ?? parse(sh.code, path, sh.lineOf, diags);
    if (ast) now.set(sh.code, ast);
    return { sh, ast };
  });
  keepLatest(parses, path, now, MAX_PARSED_DOCUMENTS);
  return out;
}

/** Shaders parsed (tests). */
export const wgslParseStats = { parses: 0 };

function parse(code: string, path: string, lineOf: (offset: number) => number, diags: Diagnostic[]): WeslAST | undefined {
  wgslParseStats.parses++;
  // wesl recovers from a syntax error by throwing an Error and catching it at the next declaration: a file
  // with syntax it does not read (vello's `#import`, `#ifdef`) throws dozens a parse, and each captured its
  // stack (~10 % of such a parse; V8 only). Only the message of an error that escapes is shown.
  const errors = Error as unknown as { stackTraceLimit?: number };
  const limit = errors.stackTraceLimit;
  if (typeof limit === 'number') errors.stackTraceLimit = 0;
  try {
    // Comments are not read (wesl attaches each to the nearest element by default: a walk of the whole tree).
    return parseSrcModule({ modulePath: 'package::main', debugFilePath: path, src: code }, { keepComments: false });
  } catch (e) {
    diags.push({ ...say('parseError', lineOf(0), String((e as Error)?.message ?? e)), severity: 'error' });
    return undefined;
  } finally {
    if (typeof limit === 'number') errors.stackTraceLimit = limit;
  }
}

/** The dispatch size of a kernel from its host file, with a diagnostic when it is not constant. */
function dispatchDetail(scan: HostScan, sh: EmbeddedShader, entry: string, kernelCount: number, hostLine: (o: number) => number, out: FileIR): { grid: number[]; detail: string } | undefined {
  const d = dispatchFor(scan, sh, entry, kernelCount);
  return d ? launchDetail(d, hostLine, out) : undefined;
}

/** The size of the dispatch a pipeline launch names. */
function launchDetail(d: Dispatch, hostLine: (o: number) => number, out: FileIR): { grid: number[]; detail: string } | undefined {
  const line = hostLine(d.offset);
  const text = d.text.trim();
  if (!d.grid) {
    out.diagnostics.push(say('dispatchUnresolved', line, text));
    return undefined;
  }
  return { grid: d.grid, detail: `dispatchWorkgroups(${text}) (line ${line})` };
}

function lineStarts(s: string): number[] {
  const out = [0];
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) === 10) out.push(i + 1);
  return out;
}

/** 1-based line of an offset. */
function lineAt(starts: number[], offset: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid] <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo + 1;
}
