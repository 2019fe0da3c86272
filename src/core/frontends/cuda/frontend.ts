/**
 * The CUDA frontend: tree-sitter-cuda syntax tree → kernel IR, one per
 * `__global__` function. See docs/counting-cuda.md for the rules.
 *
 *   source ──► parse ──► file facts (macros, #if, functions, structs, launches)
 *          ──► per kernel: bindings (user > launch > template > define > launch_bounds)
 *          ──► abstract run of the body for one block ──► KernelIR
 *
 * Never throws on user input: what cannot be read becomes a diagnostic.
 */
import { deferPipelines, inputsKey, KernelCache, movable, ReadsMemo, runKernels } from '../../engine/driver';
import type { Frontend, FrontendContext } from '../../frontend';
import type { Diagnostic, FileIR, HostPipelineFact, KernelIR } from '../../ir';
import { say } from '../../messages';
import { CUDA_ARCH, targetArch } from './arch';
import { FileInfo } from './file';
import { analyzeKernel, clearSuggestionMemo } from './kernel';
import { cudaPipelines } from './pipeline';
import type { Tree } from 'web-tree-sitter';
import { errorLines, newlines, searchTogether, syntaxRoot } from '../../syntax-tree';
import type { Deps, RowEdit } from '../../deps';
import { fingerprint } from './deps';
import { brief, fileRow, lineOf, Snippets, withRowMap, type Node } from './syntax';
import type { FlatScope } from './file';
import { documentFrame, forgetTree, parseCached, type DocFrame } from '../../parsers';
import { relatedRequests, type RelatedFile } from '../../related';

const MAX_SYNTAX_DIAGNOSTICS = 5;
const MAX_SEARCH_DEPTH = 256;

export const cudaFrontend: Frontend = (input) => {
  const { headers, used, text, prefix, scopes } = parsedText(input);
  const ctx: FrontendContext = { ...input, source: text };
  return withRowMap(used?.map, () => analyseFile(ctx, input.source, used, headers?.read, prefix, scopes));
};

/**
 * The text the frontend parses for a file: its project headers in front of it
 * (`#include "utils.h"`, when the host read them, as the preprocessor puts
 * them: their macros, helpers and structs are then known), `__align__`
 * and guarded C linkage spelled as the grammar reads them (`spelled`).
 */
function parsedText(input: Pick<FrontendContext, 'source' | 'related'>): ParsedText {
  // The same file and project files as the call before (the parse ahead, then the analysis; a pipeline's launches).
  if (lastParsed?.source === input.source && lastParsed.related === input.related) return lastParsed.out;
  const headers = headerPrefix(input);
  // Headers not read in front (none of them could change the report) still count as supplied for the notes.
  const used = headers?.text ? headers : undefined;
  const { text, prefix, scopes } = spelled(used?.text ?? '', input.source);
  const out = { headers, used, text, scopes, ...(used ? { prefix } : {}) };
  lastParsed = { source: input.source, related: input.related, out };
  return out;
}

interface ParsedText {
  headers: Headers | undefined;
  used: Headers | undefined;
  text: string;
  scopes: FlatScope[];
  /** The headers' part of `text` (the same string at every keystroke), when headers are read in front. */
  prefix?: string;
}

/** The last file `parsedText` read and what it made of it. */
let lastParsed: { source: string; related: FrontendContext['related']; out: ParsedText } | undefined;

/**
 * What the frontend will parse for this file, and the prefix it starts from
 * (the headers' part): a caller that parses ahead in time slices (the
 * editor) parses this text, so the frontend's parse finds its tree.
 */
export function cudaParseInput(input: Pick<FrontendContext, 'source' | 'related'>): { text: string; prefix?: string } {
  const { text, prefix } = parsedText(input);
  return prefix !== undefined ? { text, prefix } : { text };
}

/** `__global__` in a file's own text (its kernels), or a launch (`<<<`, white space allowed inside) in it or a header. */
const KERNEL = /__global__/;
const LAUNCH = /<\s*<\s*</;

interface Headers {
  /** The headers' texts, nested ones first, each ending with a newline. */
  text: string;
  /** Row of the analysed text → 1-based line of the file (a header's rows: its `#include` line). */
  map: (row: number) => number;
  /** The specs read (their `#include` lines are not "not read"). */
  read: Set<string>;
  /** The specs of those read for their macros only (past the headers a host reads whole: `RelatedFile.macrosOnly`). */
  macrosOnly: Set<string>;
  /** Rows of the text in front of the file. */
  rows: number;
}

/** Header text read in front of a file at most (characters). */
const MAX_HEADER_TEXT = 1_000_000;

function headerPrefix(input: Pick<FrontendContext, 'source' | 'related'>): Headers | undefined {
  const related = input.related ? Object.entries(input.related) : [];
  if (related.length === 0) return undefined;
  // The report holds the file's own kernels and the launches of its host code: a file with no kernel, whose
  // text and headers launch none, takes nothing from its headers (the same report without), so they are not parsed.
  if (!KERNEL.test(input.source) && !LAUNCH.test(input.source) && !related.some(([, f]) => LAUNCH.test(f.text)))
    return { text: '', map: (row) => row + 1, read: new Set(related.map(([spec]) => spec.split(' ')[0])), macrosOnly: new Set(), rows: 0 };
  const joined = joinedHeaders(related);
  if (!joined.text) return undefined;
  const { text, spans, rows, read, macrosOnly } = joined;
  // Where the file includes each header: read only when a row of the headers is mapped (a diagnostic in them).
  let own: Map<string, number> | undefined;
  let first = 1;
  const lineOfSpec = (spec: string): number => {
    if (!own) {
      own = new Map(relatedRequests('cuda', input.source).map((q) => [q.spec, q.line]));
      first = own.size ? Math.min(...own.values()) : 1;
    }
    return own.get(spec) ?? first;
  };
  const map = (row: number): number => {
    if (row >= rows) return row - rows + 1;
    return lineOfSpec(spans.find((sp) => row < sp.to)!.spec);
  };
  return { text, map, read, macrosOnly, rows };
}

/** The headers' text as read in front of the file, the rows each ends at, and what was read: the same for the same headers. */
interface JoinedHeaders {
  text: string;
  spans: { to: number; spec: string }[];
  rows: number;
  read: Set<string>;
  macrosOnly: Set<string>;
}

/** The last headers joined, by their specs, paths and texts (the editor sends new objects with the same texts at every keystroke). */
let lastJoined: { related: [string, RelatedFile][]; out: JoinedHeaders } | undefined;

function joinedHeaders(related: [string, RelatedFile][]): JoinedHeaders {
  const last = lastJoined?.related;
  if (last && last.length === related.length && last.every(([spec, f], i) => spec === related[i][0] && f.path === related[i][1].path && f.text === related[i][1].text && f.macrosOnly === related[i][1].macrosOnly))
    return lastJoined!.out;
  // Nested headers were read after the ones that include them: put them first.
  const ordered = [...related].reverse();
  const spans: { to: number; spec: string }[] = [];
  let text = '';
  let rows = 0;
  const read = new Set<string>();
  const macrosOnly = new Set<string>();
  for (const [spec, f] of ordered) {
    const body = f.text.endsWith('\n') || !f.text ? f.text : `${f.text}\n`;
    // The headers are parsed and scanned with the file on every analysis: past this size, the rest stay unread (and said).
    if (text.length + body.length > MAX_HEADER_TEXT) continue;
    const name = spec.split(' ')[0];
    read.add(name);
    if (f.macrosOnly) macrosOnly.add(name);
    text += body;
    rows += newlines(body, 0, body.length);
    spans.push({ to: rows, spec: name });
  }
  const out = { text, spans, rows, read, macrosOnly };
  lastJoined = { related, out };
  return out;
}

function analyseFile(ctx: FrontendContext, ownSource: string, headers: Headers | undefined, supplied: Set<string> | undefined, prefix: string | undefined, scopes: FlatScope[]): FileIR {
  const diagnostics: Diagnostic[] = [];
  // The tree belongs to the parse cache (re-parsed incrementally after an edit): never deleted here.
  // With headers in front: a text parsed from scratch (a first parse, a text with syntax errors) starts from their tree.
  const tree = parseCached(ctx.parsers.cuda, ctx.path ?? '<input>', ctx.source, ctx.budget.parseMs, false, prefix);
  if (!tree) return { language: 'cuda', kernels: [], diagnostics: [say('parserGaveUp', 1, 'CUDA')] };
  searchTogether(tree.language, SEARCHED_TOGETHER);
  const root = syntaxRoot(tree, ctx.source);
  const closed = closeBraces(ctx, root, prefix);
  const arch = targetArch(ctx.gpu);
  const values = userValues(ctx);
  // The file's scan (declarations, macros, launch sites) and its context hash, reused while the tree and the
  // values it depends on are the same: a pipeline's launches and re-analyses after a settings change read it again.
  const key = `${JSON.stringify([...values])}\u0001${JSON.stringify(arch)}`;
  const cached = scanOf(ctx, closed?.tree ?? tree, key, headers, values, arch, scopes, closed ? closedKey(ctx.path ?? '<input>') : undefined, closed?.text);
  // In time slices the scan of a large file may take several calls (each scans on from where the last stopped).
  if (cached && 'pending' in cached) return { language: 'cuda', kernels: [], diagnostics: [], incomplete: { analysed: 0, total: 0, scanned: cached.pending, statements: cached.of } };
  const snippets = cached?.snippets ?? new Snippets(ctx.parsers.cuda);
  try {
    diagnostics.push(...syntaxErrors(root));
    const file = cached?.file ?? ownKernels(new FileInfo(closed ? syntaxRoot(closed.tree, closed.text) : root, snippets, values, arch, false, scopes), headers);
    diagnostics.push(...file.diagnostics, ...includeNotes(file, headers, supplied));
    const source = closed ? `${ctx.source}\n;}` : ctx.source;
    // Besides the kernel's recorded reads: the architecture `__CUDA_ARCH__` takes.
    const context = ctx.source.includes(CUDA_ARCH) ? `arch:${String(file.archValue)}` : '';
    // The document version as the file's own lines see it (kernels and pipelines an Enter above them moves).
    const frame = movable(ctx) ? ownFrame(documentFrame(ctx.parsers.cuda, ctx.path ?? '<input>', ctx.source), headers?.rows ?? 0) : undefined;
    const r = analyzeKernels(ctx, file, context, source, frame);
    diagnostics.push(...r.diagnostics);
    if (file.kernels.length === 0) {
      const defs = (ownSource.match(/__global__/g) ?? []).length;
      diagnostics.push(defs > 0 ? say('kernelsNotFound', 1, 'CUDA', `${defs} \`__global__\` function(s)`) : say('noKernels', 1, 'CUDA (`__global__`)'));
    }
    // Launch sequences of the host code (issue 18); not while analysing one launch of one; past the time slice, in the next call.
    const defer = !ctx.user.launch && !r.incomplete && deferPipelines(ctx, r);
    const pipelines =
      ctx.user.launch || r.incomplete || defer
        ? []
        : pipelineMemo.get(
            ctx,
            ctx.path ?? '<input>',
            `${inputsKey(ctx)}\u0001${JSON.stringify(arch)}`,
            file.root,
            (d, edit, lines) => fingerprint(file, d, source, edit, lines),
            () => cudaPipelines(ctx, file),
            () => !ctx.budget.fileTruncated && !ctx.budget.expired,
            frame,
          );
    const incomplete = r.incomplete ?? (defer ? { analysed: r.kernels.length, total: r.kernels.length } : undefined);
    // The syntax errors of the text the kernels were read from (with its braces closed, while typing in a block left open).
    const errors = errorLines(file.root, lineOf);
    return {
      language: 'cuda',
      kernels: r.kernels,
      diagnostics,
      ...(errors.length ? { syntaxErrors: errors } : {}),
      ...(pipelines.length ? { pipelines } : {}),
      ...(incomplete ? { incomplete } : {}),
      ...(defer ? { pipelinesPending: true } : {}),
    } satisfies FileIR;
  } finally {
    if (!cached) snippets.dispose();
  }
};

interface FileScan {
  tree: Tree;
  key: string;
  file: FileInfo;
  snippets: Snippets;
}

/** The last scan per path; a new tree or other values replace it (and free its snippets). */
const fileScans = new Map<string, FileScan>();
/** Paths whose scans are kept at most (the oldest is dropped). */
const MAX_FILE_SCANS = 64;

/** Scans in time slices under way, per path: the next call scans on (`FileInfo.scanOn`) while the tree and values are the same. */
const pendingScans = new Map<string, FileScan>();

function scanOf(
  ctx: FrontendContext,
  tree: Tree,
  key: string,
  headers: Headers | undefined,
  values: Map<string, number>,
  arch: ReturnType<typeof targetArch>,
  scopes: FlatScope[],
  scanKey?: string,
  text = ctx.source,
): FileScan | { pending: number; of: number } | undefined {
  const path = scanKey ?? ctx.path ?? '<input>';
  const hit = fileScans.get(path);
  if (hit && hit.tree === tree && hit.key === key) return hit;
  // Build it outside the cache when the budget may cut the scan short (a partial scan must not be reused).
  if (ctx.budget.fileTruncated || ctx.budget.expired) return undefined;
  if (hit) fileScans.delete(path);
  // The previous scan's macro parses are taken over where the new one reads the same texts; the rest are freed.
  // A scan in slices under way for an earlier text hands over its own (and, through them, the finished scan's).
  const earlier = pendingScans.get(path);
  pendingScans.delete(path);
  if (earlier) hit?.snippets.dispose();
  const scan: FileScan =
    earlier && earlier.tree === tree && earlier.key === key
      ? earlier
      : (() => {
          const snippets = new Snippets(ctx.parsers.cuda, earlier?.snippets ?? hit?.snippets);
          return { tree, key, file: new FileInfo(syntaxRoot(tree, text), snippets, values, arch, true, scopes), snippets };
        })();
  let progress: ReturnType<FileInfo['scanOn']>;
  try {
    progress = scan.file.scanOn(ctx.budget.sliced ? () => ctx.budget.over() : undefined);
  } catch (e) {
    scan.snippets.dispose();
    throw e;
  }
  if (progress !== true) {
    pendingScans.set(path, scan);
    while (pendingScans.size > MAX_FILE_SCANS) dispose(pendingScans, pendingScans.keys().next().value as string);
    return { pending: progress.done, of: progress.of };
  }
  scan.snippets.releaseEarlier();
  ownKernels(scan.file, headers);
  fileScans.set(path, scan);
  if (fileScans.size > MAX_FILE_SCANS) dispose(fileScans, fileScans.keys().next().value as string);
  return scan;
}

/** Drops a kept scan and frees its snippets. */
function dispose(scans: Map<string, FileScan>, path: string): void {
  scans.get(path)?.snippets.dispose();
  scans.delete(path);
}

/** The last text respelled and its result (a pipeline's launches are analysed on the same text). */
let lastSpelled: { head: string; own: string; to: Spelled } | undefined;

interface Spelled {
  text: string;
  prefix: string;
  /** The file's namespaces read as top-level code (`flatNamespaces`), at their places in `text`. */
  scopes: FlatScope[];
}

/**
 * The text as the grammar reads it, the headers read in front (`head`) and
 * the file's own text: an unterminated comment ended, macros that stand for
 * qualifiers or pragmas spelled out (`spellQualifierMacros`), CuTe's
 * `typename` in expressions (`spellDependentTypes`), X-macro initializers
 * (`spellInitializerDirectives`), `__align__(n)` spelled `alignas(n)`,
 * conditionals the grammar cannot read resolved (`resolveGuards`). The
 * headers, the same text at every keystroke, are respelled once (the file
 * reads their macros' definitions); the file's own text at each.
 */
function spelled(head: string, own: string): Spelled {
  if (lastSpelled?.head === head && lastSpelled.own === own) return lastSpelled.to;
  const h = head ? spelledHead(head) : undefined;
  let to: Spelled;
  if (head && !h) {
    // A comment the headers leave open runs on into the file: the whole text respelled as one.
    const whole = endUnterminatedComment(head + own);
    const text = spelledPart(whole, definesOf(whole, 0, new Map()));
    to = { text, prefix: text.slice(0, head.length), scopes: [] };
  } else {
    const ended = spellIncludeGuard(endUnterminatedComment(own));
    // After the other respellings: a linkage block under `#ifdef __cplusplus` is already read (`resolveGuards`).
    const flat = flatNamespaces(spelledPart(ended, definesOf(ended, 0, new Map(h?.defines ?? []))));
    const prefix = h?.out ?? '';
    to = {
      text: prefix + flat.text,
      prefix,
      scopes: flat.scopes.map((f) => ({ ...f, from: f.from + prefix.length, to: f.to + prefix.length })),
    };
  }
  lastSpelled = { head, own, to };
  return to;
}

/** A part of the text respelled, given the `#define`s of it and of what comes before it. */
function spelledPart(text: string, defines: Defines): string {
  return resolveGuards(spellAlignas(spellInitializerDirectives(spellDependentTypes(spellQualifierMacros(text, defines)))));
}

/** The headers respelled, with their `#define`s; undefined when they leave a comment open. */
let headSpelled: { head: string; value: { defines: Defines; out: string } | undefined } | undefined;

function spelledHead(head: string): { defines: Defines; out: string } | undefined {
  if (headSpelled?.head !== head) {
    const open = endUnterminatedComment(head) !== head;
    const defines = open ? new Map() : definesOf(head, 0, new Map());
    headSpelled = { head, value: open ? undefined : { defines, out: spelledPart(head, defines) } };
  }
  return headSpelled.value;
}

/**
 * The text with everything after an unterminated `/*` blanked (its opener
 * kept: the parser says a syntax error there). The compiler reads the rest
 * as the comment; the grammar's lexer looked for its end from every `/*`
 * after it, to the end of the text each time: a file of 50,000 lines of
 * `/* x` took ~400 s to parse (5,000 lines: 4 s).
 */
function endUnterminatedComment(source: string): string {
  const last = source.lastIndexOf('/*');
  if (last < 0 || source.indexOf('*/', last + 2) >= 0) return source;
  // Where comments, strings and character literals start and end, from the top: the first `/*` that is not
  // inside one of them and has no `*/` after it.
  for (let i = 0; i < source.length; i++) {
    const c = source.charCodeAt(i);
    if (c === 47 /* / */) {
      const n = source.charCodeAt(i + 1);
      if (n === 47) {
        const eol = source.indexOf('\n', i + 2);
        if (eol < 0) return source;
        i = eol;
      } else if (n === 42 /* * */) {
        const end = source.indexOf('*/', i + 2);
        if (end < 0) return source.slice(0, i + 2) + blank(source.slice(i + 2));
        i = end + 1;
      }
    } else if (c === 34 /* " */ || c === 39 /* ' */) {
      // To its closing quote or the end of its line (an unclosed literal does not go on past it).
      for (i++; i < source.length; i++) {
        const d = source.charCodeAt(i);
        if (d === 92 /* \\ */) i++;
        else if (d === c || d === 10) break;
      }
    }
  }
  return source;
}

/**
 * Function qualifiers and unroll pragmas of CuTe and CUTLASS, as their headers
 * (`cute/config.hpp`, `cutlass/detail/helper_macros.hpp`) define them for
 * device code: used where those headers are not read (`#include
 * <cute/tensor.hpp>`). `''`: the name is blanked.
 */
const LIBRARY_MACROS: ReadonlyMap<string, string> = new Map([
  ['CUTE_HOST_DEVICE', ''],
  ['CUTE_DEVICE', '__device__'],
  ['CUTE_HOST', '__host__'],
  ['CUTE_UNROLL', ''],
  ['CUTE_NO_UNROLL', ''],
  ['CUTLASS_HOST_DEVICE', ''],
  ['CUTLASS_DEVICE', '__device__'],
  ['CUTLASS_HOST', '__host__'],
  ['CUTLASS_GLOBAL', '__global__'],
  ['CUTLASS_PRAGMA_UNROLL', ''],
  ['CUTLASS_PRAGMA_NO_UNROLL', ''],
]);
/** A word that may be one of LIBRARY_MACROS. */
const LIBRARY_MACRO = /\b(?:CUTE|CUTLASS)_[A-Z_]+\b/g;
const QUALIFIER_WORDS = new Set(['__host__', '__device__', '__global__', '__forceinline__', '__noinline__', 'inline', '__inline__', 'static', 'extern']);
/** The spellings of `macroSpelling`, the strongest first (a macro defined one way for device code and another for the host is read as for device code). */
const SPELLING_ORDER = ['__global__', '__device__', '__host__', ''];

/**
 * How the grammar is to read a macro defined as `body`: as the one qualifier
 * that matters to the analysis (`__global__`; `__device__` or `__host__`
 * alone), as nothing (a host and device function is read as a plain one: the
 * analysis inlines it where a kernel calls it, and a pipeline may walk it; an
 * unroll pragma or an empty macro changes no count), or, for any other
 * definition, not at all (undefined).
 */
function macroSpelling(body: string): string | undefined {
  let code = body.replace(/\/\/.*$|\/\*.*?\*\//g, '').trim();
  if (/^(?:_Pragma[ \t]*\(.*\)|#[ \t]*pragma[ \t].*)$/.test(code)) return '';
  // Linkage and visibility attributes (`__attribute__((visibility("default")))`, `__declspec(dllexport)`: an
  // export macro) change no count; a layout attribute (`aligned`, `packed`) would: such a macro is left as written.
  if (/__attribute__|__declspec/.test(code)) {
    if (/\b(?:aligned|packed|align)\b/.test(code)) return undefined;
    code = code.replace(/__attribute__\s*\(\((?:[^()]|\([^()]*\))*\)\)|__declspec\s*\((?:[^()]|\([^()]*\))*\)/g, ' ').trim();
    if (!code) return '';
  }
  const words = code ? code.split(/\s+/) : [];
  if (!words.every((w) => QUALIFIER_WORDS.has(w))) return undefined;
  if (words.includes('__global__')) return '__global__';
  const device = words.includes('__device__');
  const host = words.includes('__host__');
  return device && !host ? '__device__' : host && !device ? '__host__' : '';
}

/** A macro defined empty (`#define HD` for host compilers, and every include guard): read as its other definitions say, if any. */
const EMPTY = 'empty';

/** What the `#define`s of a text say of its macros: each name's spellings (`macroSpelling`, or EMPTY), or null for a name also defined otherwise. */
type Defines = Map<string, Set<string> | null>;

/** Lines a qualifier macro's definition may go on for (`\` at the end of each). */
const MAX_CONTINUED = 4;

/** The `#define`s of `source` from `from` on, into `out`. */
function definesOf(source: string, from: number, out: Defines): Defines {
  for (let at = source.indexOf('define', from); at >= 0; at = source.indexOf('define', at + 6)) {
    const line = source.lastIndexOf('\n', at - 1) + 1;
    if (line < from || !/^[ \t]*#[ \t]*$/.test(source.slice(line, at))) continue;
    const m = /^define[ \t]+([A-Za-z_]\w*)(?:[ \t]+([^\n]*))?(?:\n|$)/.exec(source.slice(at, source.indexOf('\n', at) + 1 || undefined));
    if (!m) continue;
    const name = m[1];
    // Never a qualifier itself or another reserved name (`#define __device__` in a header for host compilers).
    if (name.startsWith('__') || QUALIFIER_WORDS.has(name) || out.get(name) === null) continue;
    // A definition that goes on past its line (`\`): its lines joined (a few; a longer one is not a qualifier's).
    let body = m[2] ?? '';
    for (let end = at + m[0].length, n = 0; body.trimEnd().endsWith('\\') && n < MAX_CONTINUED; n++) {
      const next = source.indexOf('\n', end);
      body = `${body.trimEnd().slice(0, -1)} ${source.slice(end, next < 0 ? undefined : next)}`;
      end = next < 0 ? source.length : next + 1;
    }
    const spelling = body.trimEnd().endsWith('\\') ? undefined : /^\s*(?:\/\/.*)?$/.test(body) ? EMPTY : macroSpelling(body);
    if (spelling === undefined) out.set(name, null);
    // A set of its own (`out` may start as a copy of the headers' map, which stays as it is).
    else out.set(name, new Set(out.get(name) ?? []).add(spelling));
  }
  return out;
}

/** The names of LIBRARY_MACROS that `source` uses from `from` on. */
function libraryNames(source: string, from: number): Set<string> {
  const out = new Set<string>();
  if (source.indexOf('CUT', from) < 0) return out;
  LIBRARY_MACRO.lastIndex = from;
  for (let m = LIBRARY_MACRO.exec(source); m; m = LIBRARY_MACRO.exec(source)) if (LIBRARY_MACROS.has(m[0])) out.add(m[0]);
  return out;
}

/**
 * Macros that stand for function qualifiers or an unroll pragma, spelled in
 * place as the preprocessor expands them: the grammar does not expand macros,
 * and a function that starts with one (`CUTE_DEVICE float f(…)`,
 * `HOST_DEVICE int g(…)`) was a syntax error, the statements after it read
 * wrongly or not at all (18 corpus files, whose helpers and loops went
 * uncounted with no other sign; each keystroke in such a file parsed it
 * again from scratch). The macros `defines` holds (the text's and those of
 * the headers read in front of it) are read from their definitions (`macroSpelling`; a
 * name defined only empty, an include guard, is not: it is one on
 * preprocessor lines), CuTe's and CUTLASS's others from `LIBRARY_MACROS`.
 * Each spelling is padded to the name's length (places and lines unchanged),
 * a longer one blanked (not `__global__`: such a kernel macro is left as
 * written); preprocessor lines (`#ifndef CUTE_DEVICE`) are left as written.
 */
function spellQualifierMacros(source: string, defines: Defines): string {
  const spell = new Map<string, string>();
  for (const [name, spellings] of defines) {
    const s = spellings && SPELLING_ORDER.find((x) => spellings.has(x));
    if (s !== undefined && s !== null) spell.set(name, s);
  }
  for (const name of libraryNames(source, 0)) if (!defines.has(name)) spell.set(name, LIBRARY_MACROS.get(name)!);
  return spell.size ? respell(source, spell) : source;
}

/** `source` with the names of `spell` spelled as it says, except on preprocessor lines. */
function respell(source: string, spell: Map<string, string>): string {
  const at: { at: number; name: string }[] = [];
  for (const [name, s] of spell) {
    // A spelling longer than the name is blanked (`DEV`: the function is read as a plain one), but not `__global__`.
    if (s.length > name.length && s === '__global__') continue;
    for (let i = source.indexOf(name); i >= 0; i = source.indexOf(name, i + name.length)) {
      if (isWordChar(source.charCodeAt(i - 1)) || isWordChar(source.charCodeAt(i + name.length)) || onDirectiveLine(source, i)) continue;
      at.push({ at: i, name });
    }
  }
  if (at.length === 0) return source;
  at.sort((a, b) => a.at - b.at);
  let out = '';
  let cur = 0;
  for (const { at: i, name } of at) {
    const s = spell.get(name)!;
    out += source.slice(cur, i) + (s.length > name.length ? '' : s).padEnd(name.length, ' ');
    cur = i + name.length;
  }
  return out + source.slice(cur);
}

function isWordChar(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
}

function onDirectiveLine(source: string, at: number): boolean {
  const line = source.lastIndexOf('\n', at - 1) + 1;
  return /^[ \t]*#/.test(source.slice(line, at + 1));
}

/**
 * `typename` before a dependent type built with braces in an expression
 * (`make_tensor(p, typename Traits::SmemLayoutX{})`, CuTe's idiom): the
 * grammar reads no such expression (a syntax error, "missing `::`", the most
 * frequent one in the CUDA corpora), and without the keyword it reads a
 * qualified type's brace initialization, which is what it is. Blanked there
 * only (a declaration, `typename T::type x{};`, names a variable between).
 */
const DEPENDENT_BRACED = /\btypename(?=\s+(?:::)?[A-Za-z_]\w*(?:\s*<[^<>;{}()]*>)?(?:\s*::\s*[A-Za-z_]\w*(?:\s*<[^<>;{}()]*>)?)+\s*\{)/g;

function spellDependentTypes(source: string): string {
  if (!source.includes('typename')) return source;
  const out = source.replace(DEPENDENT_BRACED, '        ');
  if (!out.includes('decltype')) return out;
  // `typename decltype(f(x, _0{}))::Layout{}`: the parentheses matched by hand (they may hold braces).
  const keywords: { from: number; to: number }[] = [];
  const head = /\btypename(?=\s+decltype\s*\()/g;
  for (let m = head.exec(out); m; m = head.exec(out)) {
    let i = out.indexOf('(', m.index) + 1;
    let depth = 1;
    for (const end = Math.min(out.length, i + MAX_DECLTYPE); i < end && depth > 0; i++) {
      const c = out.charCodeAt(i);
      if (c === 40 /* ( */) depth++;
      else if (c === 41 /* ) */) depth--;
      else if (c === 59 /* ; */) break;
    }
    if (depth === 0 && /^(?:\s*::\s*[A-Za-z_]\w*(?:\s*<[^<>;{}()]*>)?)+\s*\{/.test(out.slice(i, i + 200))) keywords.push({ from: m.index, to: m.index + 8 });
  }
  return blankSpans(out, keywords);
}

/** How far `spellDependentTypes` looks for the end of a `decltype(…)`. */
const MAX_DECLTYPE = 2000;

/**
 * A brace initializer whose first line is a conditional (`static const Entry
 * kTable[] = {` / `#if …` / `X_MACRO_ROWS(ENTRY)` / `#endif` / `};`, a
 * registry built with X-macros): the grammar reads no directive inside an
 * initializer, nor the macro rows the directives hold, and the text after was
 * one syntax error to its end, at every keystroke. The initializer's
 * contents are blanked (lines kept): an empty table of the host, which the
 * analysis reads the same as the one it could not read (nothing counted).
 */
function spellInitializerDirectives(source: string): string {
  const blanks: { from: number; to: number }[] = [];
  for (let at = source.indexOf('#if'); at >= 0; at = source.indexOf('#if', at + 3)) {
    const line = source.lastIndexOf('\n', at - 1) + 1;
    if (!/^[ \t]*$/.test(source.slice(line, at))) continue;
    // The line before ends with `= {`.
    const before = source.slice(Math.max(0, line - 200), line);
    if (!/=\s*\{\s*$/.test(before)) continue;
    const open = source.lastIndexOf('{', line);
    if (blanks.length && blanks[blanks.length - 1].to > open) continue;
    const close = matchingBrace(source, open);
    if (close < 0 || !/^\s*;/.test(source.slice(close + 1, close + 40))) continue;
    blanks.push({ from: open + 1, to: close });
  }
  return blankSpans(source, blanks);
}

/** The `}` that closes the `{` at `open` (comments and literals skipped), -1 past MAX_INITIALIZER characters. */
function matchingBrace(source: string, open: number): number {
  let depth = 0;
  const end = Math.min(source.length, open + MAX_INITIALIZER);
  for (let i = open; i < end; i++) {
    const c = source.charCodeAt(i);
    if (c === 123 /* { */) depth++;
    else if (c === 125 /* } */) {
      if (--depth === 0) return i;
    } else if (c === 47 /* / */ && source.charCodeAt(i + 1) === 47) {
      const eol = source.indexOf('\n', i);
      if (eol < 0) return -1;
      i = eol;
    } else if (c === 47 && source.charCodeAt(i + 1) === 42 /* * */) {
      const e = source.indexOf('*/', i + 2);
      if (e < 0) return -1;
      i = e + 1;
    } else if (c === 34 /* " */ || c === 39 /* ' */) {
      for (i++; i < end; i++) {
        const d = source.charCodeAt(i);
        if (d === 92 /* \\ */) i++;
        else if (d === c || d === 10) break;
      }
    }
  }
  return -1;
}

/** How far `matchingBrace` looks for an initializer's end. */
const MAX_INITIALIZER = 200_000;

function spellAlignas(source: string): string {
  if (!source.includes('__align__') || /#\s*define\s+__align__/.test(source)) return source;
  return source.replace(/\b__align__(?=\s*\()/g, 'alignas  ');
}

/**
 * A conditional block with no other directive inside: its `#if`/`#ifdef`
 * line (1: the condition), its lines (2), its `#endif` line (3).
 */
const SIMPLE_BLOCK = /^[ \t]*#[ \t]*(if[ \t][^\n]*|ifdef[ \t][^\n]*)\n((?:(?![ \t]*#)[^\n]*\n)*?)([ \t]*#[ \t]*endif\b[^\n]*)$/my;
const CPLUSPLUS = /^(?:ifdef[ \t]+__cplusplus|if[ \t]+(?:defined[ \t]*\(?[ \t]*)?__cplusplus[ \t]*\)?)[ \t]*(?:\/\/.*|\/\*.*\*\/)?\r?$/;
const CUDACC = /^(?:ifdef[ \t]+__CUDACC__|if[ \t]+defined[ \t]*\(?[ \t]*__CUDACC__[ \t]*\)?)[ \t]*(?:\/\/.*|\/\*.*\*\/)?\r?$/;
/** Characters a resolved block holds at most. */
const MAX_GUARDED_BODY = 240;
/** Function qualifiers a `#ifdef __CUDACC__` block may hold alone (inside a declaration). */
const QUALIFIERS = /^(?:\s|__host__|__device__|__forceinline__|inline)+$/;

/** A block's code without comments and white space. */
function bare(lines: string): string {
  return lines.replace(/\/\/[^\n]*|\/\*[\s\S]*?\*\//g, '').replace(/\s+/g, '');
}

/** `source` with the spans `blanks` (in order, apart) blanked. */
function blankSpans(source: string, blanks: { from: number; to: number }[]): string {
  if (blanks.length === 0) return source;
  let out = '';
  let from = 0;
  for (const b of blanks) {
    out += source.slice(from, b.from) + blank(source.slice(b.from, b.to));
    from = b.to;
  }
  return out + source.slice(from);
}

/** An include guard's `#ifndef X` or `#if !defined(X)` / `#if !defined X` line (from its `#`): [the directive, X, X, X]. */
const GUARD_IF = /^#[ \t]*(?:ifndef[ \t]+(\w+)|if[ \t]+![ \t]*defined[ \t]*(?:\([ \t]*(\w+)[ \t]*\)|[ \t]+(\w+)))[ \t]*/;

/** The `#define X` that follows it: [, X]. */
const GUARD_DEFINE = /^#[ \t]*define[ \t]+(\w+)\b/;

/** A conditional directive at the start of a line: which (`if`, `ifdef`, `ifndef`, `elif`…, `else`, `endif`). */
const CONDITIONAL = /^[ \t]*#[ \t]*(if|ifdef|ifndef|elif\w*|else|endif)\b/gm;

/** Where the first character after `at` that is neither white space nor in a comment stands (the text's length if none). */
function pastBlank(source: string, at: number): number {
  for (;;) {
    while (at < source.length && /\s/.test(source[at])) at++;
    if (source.startsWith('//', at)) {
      const nl = source.indexOf('\n', at);
      if (nl < 0) return source.length;
      at = nl + 1;
    } else if (source.startsWith('/*', at)) {
      const end = source.indexOf('*/', at + 2);
      if (end < 0) return source.length;
      at = end + 2;
    } else return at;
  }
}

/**
 * A file's include guard (`#ifndef X` / `#define X` … `#endif` around the
 * whole text) with its `#ifndef` and `#endif` lines blanked: what the
 * preprocessor reads the first time (X is not defined yet; its `#define` is
 * kept). Without it the whole file was one top-level statement, walked again
 * at every keystroke, with no statement of it carried over (syntax-tree.ts).
 * Left as written unless the guard's `#endif` closes it and only comments
 * follow (an `#else` of the guard, an `#if` left open, code after it: not a
 * guard).
 */
function spellIncludeGuard(source: string): string {
  if (!source.includes('#')) return source;
  const open = pastBlank(source, 0);
  const m = GUARD_IF.exec(source.slice(open, open + 400));
  if (!m) return source;
  // The directive's line: only a comment may follow it.
  const eol = source.indexOf('\n', open);
  const rest = source.slice(open + m[0].length, eol < 0 ? undefined : eol).trim();
  if (eol < 0 || (rest && !rest.startsWith('//') && !/^\/\*.*\*\/$/.test(rest))) return source;
  const def = pastBlank(source, eol + 1);
  const d = GUARD_DEFINE.exec(source.slice(def, def + 400));
  if (!d || d[1] !== (m[1] ?? m[2] ?? m[3])) return source;
  let depth = 0;
  CONDITIONAL.lastIndex = def;
  for (let c = CONDITIONAL.exec(source); c; c = CONDITIONAL.exec(source)) {
    const kind = c[1];
    if (kind === 'endif') depth--;
    else if (kind.startsWith('if')) depth++;
    else if (depth === 0) return source;
    if (depth >= 0) continue;
    const end = source.indexOf('\n', c.index);
    const lineEnd = end < 0 ? source.length : end;
    if (pastBlank(source, lineEnd) < source.length) return source;
    return blankSpans(source, [
      { from: open, to: open + m[0].length },
      { from: c.index, to: lineEnd },
    ]);
  }
  return source;
}

/** A namespace's or linkage block's opening, from its keyword (sticky): [, the namespace's name]. */
const NAMESPACE_OPEN = /namespace\b(?:[ \t\r\n]*([A-Za-z_]\w*(?:[ \t]*::[ \t]*(?:inline[ \t]+)?[A-Za-z_]\w*)*))?[ \t\r\n]*\{/y;
const EXTERN_OPEN = /extern[ \t]+"C(?:\+\+)?"[ \t\r\n]*\{/y;
/** The characters `flatNamespaces` stops at: comments, literals, braces, directives. */
const STRUCTURE = /[/"'{}#]/g;

/** A letter, digit, `_` or `$` (char code). */
function isNameChar(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 36;
}

/** `inline ` before a namespace's keyword. */
const INLINE_BEFORE = /\binline[ \t]+$/;

/**
 * The file's namespaces (`namespace ops { … }`, nested ones, anonymous ones)
 * and `extern "C" { … }` blocks read as top-level code: their opening and
 * their `}` blanked, each namespace's name and place kept (a call
 * `ops::f()` still finds only the `f` inside it: `FlatScope`). Names,
 * types and counts are the same; what changes is that each function in
 * them is a top-level statement, so an edit walks, searches and re-parses
 * only its own (a namespace around a whole file was one statement, read
 * again at every keystroke). Only where the braces can be matched in the
 * text alone: a `{` or `}` that an `#if` and its `#else` leave unbalanced,
 * a literal or comment left open, braces that never close: the text is
 * left as written.
 */
export function flatNamespaces(source: string): { text: string; scopes: FlatScope[] } {
  const same = { text: source, scopes: [] };
  if (!source.includes('namespace') && !source.includes('extern')) return same;
  // Open braces: a namespace or linkage block (flattened while every brace around it is one too), or another.
  const stack: { flat: boolean; name?: string; from: number; open: number }[] = [];
  // Per open `#if`: the brace depth at its start, and at the end of each branch so far.
  const conds: { at: number; ends: number[] }[] = [];
  const blanks: { from: number; to: number }[] = [];
  const scopes: FlatScope[] = [];
  const n = source.length;
  // Read at every keystroke: jumps from one character that matters to the next (a character-by-character loop, or
  // one regex for every token, took 1–1.3 ms on 100 kB); the keywords are found beforehand.
  const keywords: number[] = [];
  for (const k of ['namespace', 'extern']) for (let at = source.indexOf(k); at >= 0; at = source.indexOf(k, at + k.length)) keywords.push(at);
  keywords.sort((a, b) => a - b);
  let next = 0;
  const eol = (i: number): number => {
    const e = source.indexOf('\n', i);
    return e < 0 ? n : e;
  };
  const re = new RegExp(STRUCTURE.source, 'g');
  // Goes on at `to`: what lies before it (a comment, a literal, a directive) is skipped, keywords in it too.
  const jump = (to: number): void => {
    re.lastIndex = to;
    while (next < keywords.length && keywords[next] < to) next++;
  };
  for (let m = re.exec(source); m; m = re.exec(source)) {
    const i = m.index;
    // A keyword passed on the way, where a word starts: a namespace's or linkage block's opening, up to its `{`
    // (the `"C"` of `extern "C"` is the character found), or nothing.
    let opened = false;
    while (!opened && next < keywords.length && keywords[next] < i) {
      const k = keywords[next++];
      const opening = k > 0 && isNameChar(source.charCodeAt(k - 1)) ? null : source.charCodeAt(k) === 110 ? NAMESPACE_OPEN : EXTERN_OPEN;
      if (!opening) continue;
      opening.lastIndex = k;
      const o = opening.exec(source);
      if (!o) continue;
      const inline = opening === NAMESPACE_OPEN ? INLINE_BEFORE.exec(source.slice(Math.max(0, k - 16), k)) : null;
      const name = opening === NAMESPACE_OPEN ? (o[1] ?? '').replace(/\binline[ \t]+/g, '').replace(/\s+/g, '') : undefined;
      const open = k + o[0].length - 1;
      stack.push({ flat: stack.every((b) => b.flat), ...(name !== undefined ? { name } : {}), from: inline ? k - inline[0].length : k, open });
      jump(open + 1);
      opened = true;
    }
    if (opened) continue;
    const c = source.charCodeAt(i);
    if (c === 47 /* / */) {
      const after = source.charCodeAt(i + 1);
      if (after === 47) jump(eol(i));
      else if (after === 42) {
        const end = source.indexOf('*/', i + 2);
        if (end < 0) return same;
        jump(end + 2);
      }
    } else if (c === 34 /* " */ || c === 39 /* ' */) {
      // A digit separator (`1'000`) is no literal; a raw string (`R"x(…)x"`) ends at its own delimiter.
      if (c === 39 && i > 0 && isNameChar(source.charCodeAt(i - 1))) continue;
      if (c === 34 && source[i - 1] === 'R') {
        const open = source.indexOf('(', i);
        const delim = open < 0 ? '' : source.slice(i + 1, open);
        if (open < 0 || delim.length > 16 || /[\s\\)"]/.test(delim)) return same;
        const end = source.indexOf(`)${delim}"`, open);
        if (end < 0) return same;
        jump(end + delim.length + 2);
        continue;
      }
      let j = i + 1;
      while (j < n && source.charCodeAt(j) !== c && source.charCodeAt(j) !== 10) j += source.charCodeAt(j) === 92 ? 2 : 1;
      if (source.charCodeAt(j) !== c) return same;
      jump(j + 1);
    } else if (c === 123 /* { */) {
      stack.push({ flat: false, from: i, open: i });
    } else if (c === 125 /* } */) {
      const b = stack.pop();
      if (!b) return same;
      if (b.flat) {
        blanks.push({ from: b.from, to: b.open + 1 }, { from: i, to: i + 1 });
        if (b.name !== undefined) scopes.push({ name: b.name, from: b.from, to: i });
      }
    } else if (c === 35 /* # */) {
      // A directive: `#` first on its line.
      const line = source.lastIndexOf('\n', i - 1) + 1;
      if (!/^[ \t]*$/.test(source.slice(line, i))) continue;
      const kind = /^[ \t]*(\w*)/.exec(source.slice(i + 1, i + 24))![1];
      if (kind.startsWith('if')) conds.push({ at: stack.length, ends: [] });
      else if (kind === 'else' || kind.startsWith('elif')) {
        const cond = conds[conds.length - 1];
        if (!cond || stack.length < cond.at) return same;
        cond.ends.push(stack.length);
        stack.length = cond.at;
      } else if (kind === 'endif') {
        const cond = conds.pop();
        if (!cond || stack.length < cond.at || cond.ends.some((e) => e !== stack.length) || (cond.ends.length === 0 && stack.length !== cond.at)) return same;
      }
      // To the end of the line, and of its `\` continuations.
      let end = eol(i);
      while (end < n && source[end - 1 - (source[end - 1] === '\r' ? 1 : 0)] === '\\') end = eol(end + 1);
      jump(end);
    }
  }
  if (stack.length || conds.length || blanks.length === 0) return same;
  blanks.sort((a, b) => a.from - b.from);
  return { text: blankSpans(source, blanks), scopes };
}

/** `text` with every character but line ends made a space. */
function blank(text: string): string {
  return text.replace(/[^\r\n]/g, ' ');
}

/**
 * The simple blocks (`SIMPLE_BLOCK`) whose condition line names `__cplusplus`
 * or `__CUDACC__`, found from those words (the text is respelled at every
 * keystroke: a search of every line start of a file and its headers for a
 * block cost ~0.3 ms on 200,000 characters).
 */
function* guardedBlocks(source: string): Generator<RegExpExecArray> {
  const seen = new Set<number>();
  for (const word of ['__cplusplus', '__CUDACC__']) {
    for (let at = source.indexOf(word); at >= 0; at = source.indexOf(word, at + word.length)) {
      const line = source.lastIndexOf('\n', at) + 1;
      if (seen.has(line)) continue;
      seen.add(line);
      SIMPLE_BLOCK.lastIndex = line;
      const m = SIMPLE_BLOCK.exec(source);
      if (m) yield m;
    }
  }
}

/**
 * Conditionals nvcc resolves that the grammar cannot read where they stand
 * (it reads both arms of a conditional, and one inside a declaration not at
 * all), spelled as nvcc reads them, places and lines unchanged:
 *
 * - the C API idiom `#ifdef __cplusplus` / `extern "C" {` / `#endif` …
 *   `#ifdef __cplusplus` / `}` / `#endif`: the linkage lines blanked, when
 *   the text has as many of one as of the other (linkage changes nothing the
 *   analysis counts). The brace opened in one conditional and closed in
 *   another could make the rest of the text one syntax error: in a project
 *   header read in front of a file, the whole file (measured on a Liger
 *   tuner and a cuda-samples host file: every keystroke then analysed
 *   everything again);
 * - `#ifdef __CUDACC__` around function qualifiers alone (`__host__
 *   __device__`, inside a template's declaration): the directive lines
 *   blanked, the qualifiers kept (nvcc defines `__CUDACC__`); the
 *   declaration was a syntax error, one that could swallow the file after it.
 */
function resolveGuards(source: string): string {
  if (!source.includes('__cplusplus') && !source.includes('__CUDACC__')) return source;
  const linkage: { from: number; to: number; open: boolean }[] = [];
  const blanks: { from: number; to: number }[] = [];
  for (const m of guardedBlocks(source)) {
    const cond = m[1];
    const body = m[2];
    // The idioms are a line or two: a longer block is left as written (and never searched for comments at length).
    if (body.length > MAX_GUARDED_BODY) continue;
    const bodyAt = m.index! + m[0].length - m[3].length - body.length;
    if (CPLUSPLUS.test(cond)) {
      const code = bare(body);
      if (code === 'extern"C"{' || code === '}') linkage.push({ from: bodyAt, to: bodyAt + body.length, open: code !== '}' });
    } else if (CUDACC.test(cond) && body.trim() && QUALIFIERS.test(body)) {
      blanks.push({ from: m.index!, to: bodyAt - 1 }, { from: bodyAt + body.length, to: m.index! + m[0].length });
    }
  }
  const opens = linkage.filter((l) => l.open).length;
  if (opens > 0 && opens === linkage.length - opens) blanks.push(...linkage);
  blanks.sort((a, b) => a.from - b.from);
  return blankSpans(source, blanks);
}

/**
 * Analysed kernels by everything they depend on: their own text and first
 * line, the rest of the file (macros, helpers, constants, launches), and the
 * user's inputs (engine/driver.ts). An edit re-analyses only the kernels it touched.
 */
const cache = new KernelCache();

/** Drops one file's scan (its tree is being dropped too). */
export function forgetCudaFile(path: string): void {
  pipelineMemo.forget(path);
  forgetTree(closedKey(path));
  for (const key of [path, closedKey(path)]) {
    dispose(fileScans, key);
    dispose(pendingScans, key);
  }
}

/** The launch pipelines of each file, reused while what they read answers the same. */
const pipelineMemo = new ReadsMemo<HostPipelineFact[]>();

/** How often the launch pipelines were reused and rebuilt (tests). */
export function cudaPipelineStats(): { reused: number; moved: number; computed: number } {
  return { ...pipelineMemo.stats };
}

export function clearCudaCache(): void {
  cache.clear();
  pipelineMemo.clear();
  clearSuggestionMemo();
  for (const scans of [fileScans, pendingScans]) {
    for (const s of scans.values()) s.snippets.dispose();
    scans.clear();
  }
}

/**
 * Half-typed code often ends inside an unclosed function, which the parser
 * then cannot read as a function at all. The file is re-read with the missing
 * `}` appended (lines are unchanged), so the kernel being typed is analysed
 * up to where the text stops.
 */
function closeBraces(ctx: FrontendContext, root: Node, prefix: string | undefined): { tree: Tree; text: string } | null {
  if (!root.hasError) return null;
  // Counted per top-level statement with an error, kept with it: after an edit only the statements it touched are counted again.
  let missing = 0;
  for (const st of root.children) missing += braceBalance(st);
  if (missing <= 0) return null;
  const text = `${ctx.source}\n;${'}'.repeat(missing)}\n`;
  // Parsed as a document of its own: a pipeline's launches read the same tree (and its scan) instead of
  // parsing the text again each, and typing on reparses it from the previous keystroke's.
  const tree = parseCached(ctx.parsers.cuda, closedKey(ctx.path ?? '<input>'), text, ctx.budget.parseMs, false, prefix);
  return tree ? { tree, text } : null;
}

const BRACES = ['{', '}'];

/** The searches of a top-level statement made in one walk (syntax-tree.ts `searchTogether`): braces, calls, launches. */
const SEARCHED_TOGETHER = [BRACES, ['call_expression'], ['kernel_call_syntax']];

/** Per top-level statement: its `{` tokens less its `}` (the parser's missing ones not counted). */
const balances = new WeakMap<Node, number>();

function braceBalance(st: Node): number {
  // A statement parsed without an error has its braces paired (every rule of the grammar with a `{` has its `}`;
  // 23,374 such statements of the corpora checked): only a brace that is a statement of its own counts.
  if (!st.hasError) return st.type === '{' ? 1 : st.type === '}' ? -1 : 0;
  let b = balances.get(st);
  if (b === undefined) {
    b = 0;
    for (const n of st.descendantsOfType(BRACES)) if (!n.isMissing) b += n.type === '{' ? 1 : -1;
    balances.set(st, b);
  }
  return b;
}

/** The parse cache's and the scans' key of a file's text with its unclosed braces closed. */
function closedKey(path: string): string {
  return `${path}\u0000closed`;
}

function analyzeKernels(ctx: FrontendContext, file: FileInfo, context: string, source: string, frame: DocFrame | undefined): ReturnType<typeof runKernels> {
  // What a kernel reads of the rest of the file is recorded while it runs and answered again at the next
  // analysis (src/core/deps.ts, ./deps.ts): an edit elsewhere re-analyses only the kernels that read it.
  const reads = { root: file.root, fingerprint: (d: Deps, edit?: RowEdit, lines?: RowEdit) => fingerprint(file, d, source, edit, lines) };
  return runKernels(
    ctx,
    cache,
    'cuda',
    'block',
    // One launch of a pipeline: only its kernel's job (the driver would take only it anyway).
    (ctx.user.launch ? file.kernels.filter((k) => k.name === ctx.user.launch!.kernel) : file.kernels).map((def) => {
      const own = def.template ?? def.node;
      return {
        // Its text, not its place: its own statement's row is among its recorded reads (an Enter above moves it).
        key: [own.text, context].join('\0'),
        deps: reads,
        name: def.name,
        line: lineOf(def.node),
        range: { startLine: fileRow(own.startPosition.row), endLine: fileRow(def.node.endPosition.row) },
        run: () => analyzeKernel(ctx, file, def, reads.fingerprint),
      };
    }),
    frame,
  );
}

/**
 * The document version as the file's own lines see it: with `headerRows` of
 * headers read in front, an edit below them is the same edit that many lines
 * up (an edit inside them, of the headers read, moves nothing).
 */
function ownFrame(frame: DocFrame | undefined, headerRows: number): DocFrame | undefined {
  if (!frame?.prev || headerRows === 0) return frame;
  const e = frame.prev.edit;
  if (e.startRow < headerRows) return { doc: frame.doc, version: frame.version };
  return { ...frame, prev: { ...frame.prev, lines: { startRow: e.startRow - headerRows, oldEndRow: e.oldEndRow - headerRows, newEndRow: e.newEndRow - headerRows } } };
}

/** Numeric `--set` values and pragmas, for `#if` / `#ifdef`. */
function userValues(ctx: FrontendContext): Map<string, number> {
  const out = new Map<string, number>();
  for (const p of ctx.pragmas) if (typeof p.value === 'number') out.set(p.name, p.value);
  for (const [n, v] of Object.entries(ctx.user.set)) if (typeof v === 'number') out.set(n, v);
  return out;
}

/** Parse errors: the first few error nodes and missing tokens. */
function syntaxErrors(root: Node): Diagnostic[] {
  if (!root.hasError) return [];
  const out: Diagnostic[] = [];
  // Searched per top-level statement, only where an error is (each keeps its list: after an edit only new statements are searched).
  const errors = root.type === 'ERROR' ? [root] : [];
  for (const st of root.children) if (st.hasError && errors.length < MAX_SYNTAX_DIAGNOSTICS) errors.push(...st.descendantsOfType('ERROR'));
  for (const e of errors) {
    if (out.length >= MAX_SYNTAX_DIAGNOSTICS) break;
    out.push(say('parseError', lineOf(e), `cannot read \`${brief(e, 40)}\``));
  }
  const missing: { node: Node; parent: Node }[] = [];
  findMissing(root, missing);
  for (const { node: m, parent } of missing.slice(0, MAX_SYNTAX_DIAGNOSTICS)) {
    const opener = lineOf(parent);
    out.push(say('parseError', opener, `missing \`${m.type}\` (the construct starting at line ${opener} is not closed)`));
  }
  return out;
}

/**
 * Missing tokens with the node that holds them. The parent is carried down
 * rather than read with `.parent`: on a node hundreds of levels deep that
 * walk overflows tree-sitter's WebAssembly stack and breaks every later parse.
 */
function findMissing(n: Node, out: { node: Node; parent: Node }[], depth = 0): void {
  if (out.length >= MAX_SYNTAX_DIAGNOSTICS || !n.hasError || depth > MAX_SEARCH_DEPTH) return;
  for (const c of n.children) {
    if (c.isMissing) out.push({ node: c, parent: n });
    else findMissing(c, out, depth + 1);
  }
}

/** The kernels of the file itself: a header's `__global__` functions are that header's. */
function ownKernels(file: FileInfo, headers: Pick<Headers, 'text' | 'read' | 'macrosOnly'> | undefined): FileInfo {
  if (!headers) return file;
  // The headers read whole: a function the analysis does not know does not come from them.
  for (const i of file.includes) if (!i.system && headers.read.has(i.path) && !headers.macrosOnly.has(i.path)) i.read = true;
  const from = headers.text.length;
  const own = file.kernels.filter((k) => (k.template ?? k.node).startIndex >= from);
  file.kernels.splice(0, file.kernels.length, ...own);
  return file;
}

/** Local headers that were not read: said once per header (headers read, and the includes inside them, are not). */
function includeNotes(file: FileInfo, headers: Headers | undefined, supplied: Set<string> | undefined): Diagnostic[] {
  const from = headers?.text.length ?? 0;
  return file.includes
    .filter((i) => !i.system && i.offset >= from && (!supplied?.has(i.path) || headers?.macrosOnly.has(i.path)))
    .map((i) => (supplied?.has(i.path) ? say('includeMacrosOnly', i.line, i.path) : say('includeNotRead', i.line, i.path)));
}
