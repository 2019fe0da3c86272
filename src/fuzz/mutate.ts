/**
 * Generic mutations of source text (any language): lines deleted,
 * duplicated, swapped or moved; tokens deleted, duplicated, swapped or
 * replaced; the text truncated; random bytes and unbalanced brackets
 * inserted; lines spliced in from another seed; pragmas with hostile values.
 * `mutate` stacks a few of them, plus now and then one hostile rewrite.
 */
import { HOSTILE, NASTY_NUMBERS, type FuzzLanguage } from './hostile';
import type { Rng } from './rng';
import { isNumberToken, isSolid, tokenize } from './tokens';

export interface MutationContext {
  lang: FuzzLanguage;
  rng: Rng;
  /** Texts of the other seeds of the same language, for splicing. */
  donors: readonly string[];
}

type Mutator = (text: string, ctx: MutationContext) => string;

/** Characters that upset lexers: controls, separators, lone surrogates, a BOM, quotes and comment openers. */
const ODD_CHARS = ['\u0000', '\u0001', '\u001b', '\t', '\r', '\u000b', '\u000c', '\u00a0', '\u2028', '\u2029', '\ufeff', '\ufffd', '\ud800', '\udfff', '😀', 'é', '\\', '#', '`', '$', '${', '*/', '/*', '"""', "'''", '"', "'"];
const BRACKETS = ['(', ')', '[', ']', '{', '}', '<', '>', '<<<', '>>>', ':', ';', ','];

function lineOp(text: string, ctx: MutationContext, op: (lines: string[], i: number, j: number) => void): string {
  const lines = text.split('\n');
  if (lines.length === 0) return text;
  op(lines, ctx.rng.int(lines.length), ctx.rng.int(lines.length));
  return lines.join('\n');
}

/** Indices of the non-space tokens. */
function solidIndices(toks: string[]): number[] {
  const out: number[] = [];
  toks.forEach((t, i) => {
    if (isSolid(t)) out.push(i);
  });
  return out;
}

function tokenOp(text: string, ctx: MutationContext, op: (toks: string[], i: number, j: number) => void): string {
  const toks = tokenize(text);
  const solid = solidIndices(toks);
  if (solid.length === 0) return text;
  op(toks, ctx.rng.pick(solid), ctx.rng.pick(solid));
  return toks.join('');
}

function insertAt(text: string, ctx: MutationContext, what: string): string {
  const at = ctx.rng.int(text.length + 1);
  return text.slice(0, at) + what + text.slice(at);
}

const pragmaPrefix = (lang: FuzzLanguage): string => (lang === 'triton' ? '#' : '//');

const MUTATORS: Record<string, Mutator> = {
  'delete-line': (t, c) => lineOp(t, c, (ls, i) => void ls.splice(i, 1)),
  'duplicate-line': (t, c) => lineOp(t, c, (ls, i) => void ls.splice(i, 0, ls[i])),
  'swap-lines': (t, c) =>
    lineOp(t, c, (ls, i, j) => {
      [ls[i], ls[j]] = [ls[j], ls[i]];
    }),
  'move-line': (t, c) => lineOp(t, c, (ls, i, j) => void ls.splice(j, 0, ...ls.splice(i, 1))),
  'delete-lines': (t, c) => lineOp(t, c, (ls, i, j) => void ls.splice(Math.min(i, j), Math.abs(i - j) + 1)),
  'delete-token': (t, c) => tokenOp(t, c, (ts, i) => void ts.splice(i, 1)),
  'duplicate-token': (t, c) => tokenOp(t, c, (ts, i) => void ts.splice(i, 0, ts[i])),
  'swap-tokens': (t, c) =>
    tokenOp(t, c, (ts, i, j) => {
      [ts[i], ts[j]] = [ts[j], ts[i]];
    }),
  'replace-token': (t, c) =>
    tokenOp(t, c, (ts, i, j) => {
      ts[i] = ts[j];
    }),
  'nasty-number': (t, c) => {
    const toks = tokenize(t);
    const nums = toks.map((x, i) => (isNumberToken(x) ? i : -1)).filter((i) => i >= 0);
    if (nums.length === 0) return t;
    toks[c.rng.pick(nums)] = c.rng.pick(NASTY_NUMBERS[c.lang]);
    return toks.join('');
  },
  truncate: (t, c) => t.slice(0, c.rng.int(t.length + 1)),
  'insert-odd-chars': (t, c) => insertAt(t, c, Array.from({ length: c.rng.range(1, 8) }, () => c.rng.pick(ODD_CHARS)).join('')),
  'insert-random-bytes': (t, c) => insertAt(t, c, Array.from({ length: c.rng.range(1, 16) }, () => String.fromCharCode(c.rng.int(256))).join('')),
  'insert-brackets': (t, c) => insertAt(t, c, Array.from({ length: c.rng.range(1, 6) }, () => c.rng.pick(BRACKETS)).join('')),
  splice: (t, c) => {
    if (c.donors.length === 0) return t;
    const donor = c.rng.pick(c.donors).split('\n');
    const from = c.rng.int(donor.length);
    const piece = donor.slice(from, from + c.rng.range(1, 30));
    return lineOp(t, c, (ls, i) => void ls.splice(i, 0, ...piece));
  },
  'hostile-pragma': (t, c) => {
    const value = c.rng.pick(['2**999', '1e308', '-1', '0', '0.5', 'nan', 'inf', '-inf', 'true', 'x', '1e-320', '9007199254740993']);
    const name = c.rng.pick(['K', 'N', 'M', 'n', 'BLOCK', 'BLOCK_SIZE', 'blockDim.x', 'tl.num_programs(0)', 'n_cols', 'dims.K']);
    return `${pragmaPrefix(c.lang)} roofline: ${name}=${value}\n${t}`;
  },
};

const NAMES = Object.keys(MUTATORS);

/** One mutated input: the text and the names of the mutations applied, in order. */
export interface Mutant {
  text: string;
  ops: string[];
}

/** Applies one to four generic mutations, and with probability `hostileRate` one hostile rewrite first. */
export function mutate(text: string, ctx: MutationContext, hostileRate: number): Mutant {
  const ops: string[] = [];
  let out = text;
  if (ctx.rng.chance(hostileRate)) {
    const h = ctx.rng.pick(HOSTILE[ctx.lang]);
    out = h.apply(out, ctx.rng);
    ops.push(`hostile:${h.name}`);
  }
  const n = ops.length > 0 ? ctx.rng.int(2) : ctx.rng.range(1, 4);
  for (let i = 0; i < n; i++) {
    const name = ctx.rng.pick(NAMES);
    out = MUTATORS[name](out, ctx);
    ops.push(name);
  }
  return { text: out, ops };
}
