/**
 * `roofline-lens diff [BASE] [HEAD] [PATH...]`: analyses the kernel files that
 * changed between two revisions and reports kernels added, removed and
 * changed; `--fail-on` turns regressions into exit code 1.
 *
 * BASE defaults to the merge base of HEAD and the default branch, HEAD to the
 * working tree. A positional argument is a revision when git resolves it,
 * else a path; everything after `--` is a path.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { languageOf } from '../core/analyze';
import { say } from '../core/messages';
import { diffReports, findRegressions, type FileChange, type RevisionInfo, type RevisionInput } from '../core/report/diff';
import type { MultiGpuFile } from '../core/report/render';
import { renderDiffMarkdown, renderDiffText } from '../core/report/renderDiff';
import { CliError, last, list, parseOptions, readFailOn, readFormat, type OptionSpec } from './args';
import { ANALYSIS_OPTIONS, budgetOf, multiReport, readAnalysisSettings, type AnalysisSettings } from './analyze';
import { Repo } from './git';
import { analysisLanguage, analyzeForGpus, decode, worthReporting, type ParsersFor } from './inputs';
import { readRelated } from './related';

const DIFF_SPEC: OptionSpec = {
  valued: { ...ANALYSIS_OPTIONS.valued, '--repo': ['-C'], '--fail-on': [] },
  flags: ANALYSIS_OPTIONS.flags,
};

const FORMATS = ['text', 'json', 'markdown'] as const;

interface Revisions {
  base: RevisionInfo & { commit: string };
  head: RevisionInfo;
  paths: string[];
}

/** Splits the positional arguments into BASE, HEAD and paths. */
function readRevisions(repo: Repo, repoDir: string, positional: string[], afterDashes: string[]): Revisions {
  const args = [...positional];
  const revs: { ref: string; commit: string }[] = [];
  while (revs.length < 2 && args.length) {
    const commit = repo.tryResolve(args[0]);
    if (commit) {
      revs.push({ ref: args.shift()!, commit });
      continue;
    }
    if (!fs.existsSync(path.resolve(repoDir, args[0]))) throw new CliError(`unknown revision '${args[0]}' in ${repo.root} (and no such path; put paths after --)`);
    break;
  }
  const base = revs[0] ?? repo.defaultBase();
  const head: RevisionInfo = revs[1] ? { ref: revs[1].ref, commit: revs[1].commit } : { ref: null, commit: null };
  return { base: { ref: base.ref, commit: base.commit }, head, paths: [...args, ...afterDashes] };
}

function kernelPath(p: string | null): string | null {
  return p !== null && languageOf(p) ? p : null;
}

interface SideFile {
  path: string;
  source?: string;
  report: MultiGpuFile;
}

function unreadable(file: string, reason: string): SideFile {
  return { path: file, report: { path: file, language: languageOf(file) ?? 'triton', diagnostics: [say('notAnalysed', 1, reason)], kernels: [] } };
}

/** Reads one revision of a file: its text, or a report saying why it could not be read. */
function readSide(repo: Repo, commit: string | null, file: string): { text?: string; failed?: SideFile } {
  const content = repo.read(commit, file);
  if (!content.ok) return { failed: unreadable(file, content.reason) };
  return { text: decode(content.bytes) };
}

/** Analyses both revisions of the changed kernel files; drops changes neither revision of which holds kernels. */
async function analyzeChanges(
  repo: Repo,
  revs: Revisions,
  changes: FileChange[],
  parsers: ParsersFor,
  s: AnalysisSettings,
): Promise<{ base: RevisionInput; head: RevisionInput; files: FileChange[] }> {
  const sides = { base: [] as SideFile[], head: [] as SideFile[] };
  const kept: FileChange[] = [];
  // Related files (`#import config`) are read from the same revision as the file.
  const analyze = async (file: string, text: string, commit: string | null): Promise<SideFile> => {
    const related = readRelated(file, languageOf(file), text, (p) => readSide(repo, commit, p).text);
    return {
      path: file,
      source: text,
      report: analyzeForGpus(text, await parsers(analysisLanguage(file)), s.gpus, { ...s.user, path: file, language: languageOf(file), ...budgetOf(s), ...(related ? { related } : {}) }),
    };
  };
  for (const change of changes) {
    const oldPath = kernelPath(change.oldPath);
    const newPath = kernelPath(change.newPath);
    const before = oldPath ? readSide(repo, revs.base.commit, oldPath) : {};
    const after = newPath ? readSide(repo, revs.head.commit, newPath) : {};
    const relevant = [[oldPath, before], [newPath, after]] as const;
    if (!relevant.some(([p, side]) => p && (side.failed || worthReporting(p, side.text ?? '')))) continue;
    kept.push({ ...change, oldPath, newPath });
    if (oldPath) sides.base.push(before.failed ?? (await analyze(oldPath, before.text!, revs.base.commit)));
    if (newPath) sides.head.push(after.failed ?? (await analyze(newPath, after.text!, revs.head.commit)));
  }
  const input = (info: RevisionInfo, read: SideFile[]): RevisionInput => ({
    info,
    report: multiReport(s.gpus, read.map((x) => x.report)),
    sources: Object.fromEntries(read.filter((x) => x.source !== undefined).map((x) => [x.path, x.source!])),
  });
  return { base: input(revs.base, sides.base), head: input(revs.head, sides.head), files: kept };
}

export async function diffCommand(argv: string[], parsers: ParsersFor, out: (s: string) => void): Promise<number> {
  const p = parseOptions(argv, DIFF_SPEC);
  const format = p.options.has('--json') ? 'json' : readFormat(last(p, '--format'), FORMATS, 'text');
  const failOn = readFailOn(list(p, '--fail-on'));
  const settings = readAnalysisSettings(p);
  const repoDir = path.resolve(last(p, '--repo') ?? '.');
  const repo = Repo.open(repoDir);
  const revs = readRevisions(repo, repoDir, p.positional, p.rest);
  const specs = revs.paths.map((x) => repo.pathspec(repoDir, x));
  const changes = repo.changes(revs.base.commit, revs.head.commit, specs).filter((c) => kernelPath(c.oldPath) || kernelPath(c.newPath));
  const { base, head, files } = await analyzeChanges(repo, revs, changes, parsers, settings);
  const d = diffReports(base, head, files);
  const regressions = findRegressions(d, failOn);
  if (format === 'json') out(JSON.stringify({ ...d, failOn, regressions }, null, 2) + '\n');
  else if (format === 'markdown') out(renderDiffMarkdown(d, regressions));
  else out(renderDiffText(d, regressions));
  return regressions.length ? 1 : 0;
}
