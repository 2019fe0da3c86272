/**
 * Command-line parsing: a small option reader shared by the commands, and
 * readers for the option values (`--set`, `--dtype`, `--grid`, ...).
 */
import type { BindingValue } from '../core/analyze';
import { parseBindingValue } from '../core/bindings';
import { parseDtype } from '../core/frontends/common';
import { texelFormat } from '../core/frontends/wgsl/texels';
import type { Dtype } from '../core/gpus/types';
import { SARIF_LEVELS, type SarifLevel, type SarifLevels } from '../core/report/sarif';
import type { FailOn } from '../core/report/diff';

/** A problem the user can fix; exits 2 with the message (and the usage when `showUsage`). */
export class CliError extends Error {
  constructor(
    message: string,
    readonly showUsage = false,
  ) {
    super(message);
  }
}

export function usageError(message: string): CliError {
  return new CliError(message, true);
}

export interface OptionSpec {
  /** Options that take a value (`--gpu X` or `--gpu=X`), with their short aliases. */
  valued: Record<string, string[]>;
  /** Options without a value. */
  flags: Record<string, string[]>;
}

export interface ParsedOptions {
  /** Values of each option given, in order (flags: one empty string per use). */
  options: Map<string, string[]>;
  /** Arguments that are not options, before `--`. */
  positional: string[];
  /** Arguments after `--`. */
  rest: string[];
}

function canonical(arg: string, names: Record<string, string[]>): string | undefined {
  for (const [name, aliases] of Object.entries(names)) if (arg === name || aliases.includes(arg)) return name;
  return undefined;
}

/** Reads options and positional arguments; an unknown option or a missing value is a usage error. */
export function parseOptions(argv: string[], spec: OptionSpec): ParsedOptions {
  const parsed: ParsedOptions = { options: new Map(), positional: [], rest: [] };
  const put = (name: string, value: string): void => {
    parsed.options.set(name, [...(parsed.options.get(name) ?? []), value]);
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--') {
      parsed.rest.push(...argv.slice(i + 1));
      break;
    }
    if (!arg.startsWith('-') || arg === '-') {
      parsed.positional.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const head = arg.startsWith('--') && eq > 0 ? arg.slice(0, eq) : arg;
    const valued = canonical(head, spec.valued);
    if (valued) {
      if (head !== arg) put(valued, arg.slice(eq + 1));
      else if (i + 1 < argv.length) put(valued, argv[++i]);
      else throw usageError(`${arg} needs a value`);
      continue;
    }
    const flag = canonical(arg, spec.flags);
    if (!flag) throw usageError(`unknown option '${arg}'`);
    put(flag, '');
  }
  return parsed;
}

/** The last value of an option, or undefined. */
export function last(p: ParsedOptions, name: string): string | undefined {
  const v = p.options.get(name);
  return v ? v[v.length - 1] : undefined;
}

/** Every value of a repeatable option; comma-separated lists are split. */
export function list(p: ParsedOptions, name: string): string[] {
  return (p.options.get(name) ?? []).flatMap((v) => v.split(',')).map((s) => s.trim()).filter(Boolean);
}

export function readFormat<F extends string>(value: string | undefined, allowed: readonly F[], fallback: F): F {
  if (value === undefined) return fallback;
  const v = value === 'md' ? 'markdown' : value;
  if (!(allowed as readonly string[]).includes(v)) throw usageError(`--format must be ${allowed.join(', ')} (got '${value}')`);
  return v as F;
}

function splitPair(kv: string, option: string, what: string): [string, string] {
  const eq = kv.indexOf('=');
  if (eq <= 0) throw usageError(`${option} takes ${what} (got '${kv}')`);
  return [kv.slice(0, eq).trim(), kv.slice(eq + 1)];
}

export function readSets(values: string[]): Record<string, BindingValue> {
  const out: Record<string, BindingValue> = {};
  for (const kv of values) {
    const [name, value] = splitPair(kv, '--set', 'NAME=VALUE');
    out[name] = parseBindingValue(value);
  }
  return out;
}

/** `--dtype NAME=TYPE`: element types, and WGSL texel formats for textures (`--dtype tex=rgba16float`). */
export function readDtypes(values: string[]): { dtypes: Record<string, Dtype>; texels: Record<string, string> } {
  const dtypes: Record<string, Dtype> = {};
  const texels: Record<string, string> = {};
  for (const kv of values) {
    const [name, value] = splitPair(kv, '--dtype', 'NAME=TYPE');
    const d = parseDtype(value);
    const f = d ? undefined : texelFormat(value);
    if (d) dtypes[name] = d;
    else if (f) texels[name] = f;
    else
      throw usageError(
        `--dtype: unknown type '${value}' (use fp64, fp32, tf32, fp16, bf16, fp8e4m3, fp8e5m2, int8, int32, or for a WGSL texture a texel format: rgba8unorm, rgba16float, r32float, …)`,
      );
  }
  return { dtypes, texels };
}

export function readGrid(value: string | undefined): number[] | undefined {
  if (value === undefined) return undefined;
  const g = value
    .split(/[,x ]/)
    .filter(Boolean)
    .map((s) => Number(s));
  if (g.length < 1 || g.length > 3 || g.some((v) => !Number.isInteger(v) || v < 1)) throw usageError(`--grid takes 1 to 3 positive integers, e.g. --grid 128,64`);
  return g;
}

/** `--sarif-level memory=warning,compute=note,unknown=note`: each key once at most. */
export function readSarifLevels(values: string[], defaults: Readonly<SarifLevels>): SarifLevels {
  const out: SarifLevels = { ...defaults };
  for (const kv of values) {
    const [key, value] = splitPair(kv, '--sarif-level', 'KIND=LEVEL, e.g. memory=warning');
    if (key !== 'memory' && key !== 'compute' && key !== 'unknown') throw usageError(`--sarif-level: unknown kind '${key}' (use memory, compute, unknown)`);
    if (!(SARIF_LEVELS as readonly string[]).includes(value)) throw usageError(`--sarif-level: unknown level '${value}' (use ${SARIF_LEVELS.join(', ')})`);
    out[key] = value as SarifLevel;
  }
  return out;
}

/** `--fail-on bound-regression` and `--fail-on ai-drop=PCT`, repeatable or comma-separated. */
export function readFailOn(values: string[]): FailOn {
  const out: FailOn = { boundRegression: false, aiDropPercent: null };
  for (const v of values) {
    if (v === 'bound-regression') {
      out.boundRegression = true;
      continue;
    }
    const [key, pct] = v.includes('=') ? splitPair(v, '--fail-on', 'bound-regression or ai-drop=PCT') : [v, ''];
    const n = Number(pct);
    if (key !== 'ai-drop') throw usageError(`--fail-on: unknown condition '${v}' (use bound-regression or ai-drop=PCT)`);
    if (pct.trim() === '' || !Number.isFinite(n) || n < 0 || n >= 100) throw usageError(`--fail-on ai-drop takes a percentage from 0 to 100 (got '${pct}')`);
    out.aiDropPercent = n;
  }
  return out;
}
