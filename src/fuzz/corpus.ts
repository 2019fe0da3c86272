/**
 * The seeds: every fixture of every language under test/fixtures (the
 * broken ones and the fuzz regressions included), each with the options its
 * `args:` header line gives.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { AnalyzeOptions } from '../core/analyze';
import type { FuzzLanguage } from './hostile';

export interface Seed {
  lang: FuzzLanguage;
  /** Path relative to test/fixtures, e.g. "cuda/sgemm_naive.cu". */
  name: string;
  text: string;
  args: Partial<AnalyzeOptions>;
}

export const EXTENSIONS: Record<FuzzLanguage, readonly string[]> = {
  triton: ['.py'],
  cuda: ['.cu', '.cuh'],
  wgsl: ['.wgsl', '.ts', '.js'],
};

/** The fixture folders of a language whose files seed the fuzzer. */
function foldersOf(lang: FuzzLanguage): string[] {
  return [lang, path.join(lang, 'broken'), path.join('regressions', lang)];
}

/**
 * Reads the seeds of `langs` under `fixturesDir`. `argsOf` reads a fixture's
 * header (test/check.ts's readSpec); `skip` names fixtures left out (known
 * failing regressions, which would only find their own bug again).
 */
export function loadSeeds(
  fixturesDir: string,
  langs: readonly FuzzLanguage[],
  argsOf: (text: string) => Partial<AnalyzeOptions>,
  skip: ReadonlySet<string> = new Set(),
): Seed[] {
  const out: Seed[] = [];
  for (const lang of langs) {
    for (const folder of foldersOf(lang)) {
      const dir = path.join(fixturesDir, folder);
      if (!fs.existsSync(dir)) continue;
      for (const f of fs.readdirSync(dir).sort()) {
        const name = path.join(folder, f).split(path.sep).join('/');
        if (skip.has(name) || !EXTENSIONS[lang].some((e) => f.endsWith(e))) continue;
        const text = fs.readFileSync(path.join(dir, f), 'utf8');
        out.push({ lang, name, text, args: safeArgs(argsOf, text) });
      }
    }
  }
  return out;
}

function safeArgs(argsOf: (text: string) => Partial<AnalyzeOptions>, text: string): Partial<AnalyzeOptions> {
  try {
    return argsOf(text);
  } catch {
    return {};
  }
}
