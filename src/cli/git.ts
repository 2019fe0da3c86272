/**
 * The git a diff needs, through `execFileSync('git', [...])` with the
 * repository as `-C` (never a shell string): the repository root, revisions,
 * the files that changed between two revisions (or a revision and the
 * working tree) and a file's bytes at a revision.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CliError } from './args';
import type { FileChange } from '../core/report/diff';

/** Files larger than this are not read (the analysis of such a file would hit its budget anyway). */
export const MAX_FILE_BYTES = 4 * 1024 * 1024;

/** A failed git command: its exit status and first line of stderr. */
class GitFailure extends Error {
  constructor(
    readonly status: number | null,
    readonly stderr: string,
    readonly code?: string,
  ) {
    super(stderr || `git exited with ${status}`);
  }
}

function git(cwd: string, args: string[], maxBuffer = MAX_FILE_BYTES + 1): Buffer {
  try {
    return execFileSync('git', ['-C', cwd, ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
      maxBuffer,
      env: { ...process.env, GIT_OPTIONAL_LOCKS: '0', GIT_TERMINAL_PROMPT: '0', LC_ALL: 'C' },
    });
  } catch (e) {
    const err = e as NodeJS.ErrnoException & { status?: number | null; stderr?: Buffer };
    const firstLine = (err.stderr?.toString('utf8') ?? '').split('\n').find((l) => l.trim()) ?? '';
    throw new GitFailure(err.status ?? null, firstLine.trim(), err.code);
  }
}

/** The worktree root containing `dir`, or undefined when it is not inside a git work tree (or git is missing). */
export function findRepoRoot(dir: string): string | undefined {
  try {
    const top = git(dir, ['rev-parse', '--show-toplevel']).toString('utf8').trim();
    return top || undefined;
  } catch {
    return undefined;
  }
}

/** What a file's content at a revision turned out to be. */
export type Content = { ok: true; bytes: Buffer } | { ok: false; reason: string };

export class Repo {
  private constructor(readonly root: string) {}

  /** Opens the repository containing `dir`; not a repository (or no git) is a CliError. */
  static open(dir: string): Repo {
    if (!fs.existsSync(dir)) throw new CliError(`not a git repository: ${dir} does not exist`);
    try {
      return new Repo(git(dir, ['rev-parse', '--show-toplevel']).toString('utf8').trim());
    } catch (e) {
      const f = e as GitFailure;
      if (f.code === 'ENOENT') throw new CliError('git is not installed (or not on PATH): diff needs it');
      throw new CliError(`not a git repository: ${dir}${f.stderr ? ` (${f.stderr})` : ''}`);
    }
  }

  private run(args: string[]): Buffer {
    return git(this.root, args, 64 * 1024 * 1024);
  }

  /** The commit a revision names; an unknown revision is a CliError. */
  resolve(rev: string): string {
    const commit = this.tryResolve(rev);
    if (!commit) throw new CliError(`unknown revision '${rev}' in ${this.root}`);
    return commit;
  }

  /** The commit a revision names, or undefined. */
  tryResolve(rev: string): string | undefined {
    if (rev === '' || rev.startsWith('-')) return undefined;
    try {
      return this.run(['rev-parse', '--verify', '--quiet', '--end-of-options', `${rev}^{commit}`]).toString('utf8').trim() || undefined;
    } catch {
      return undefined;
    }
  }

  /** The default branch: origin/HEAD, else main, else master (local or on origin). */
  defaultBranch(): string | undefined {
    return ['origin/HEAD', 'main', 'master', 'origin/main', 'origin/master'].find((b) => this.tryResolve(b) !== undefined);
  }

  /** The merge base of HEAD and the default branch, the diff's default BASE. */
  defaultBase(): { ref: string; commit: string } {
    if (!this.tryResolve('HEAD')) throw new CliError(`the repository ${this.root} has no commits yet: nothing to compare with`);
    const branch = this.defaultBranch();
    if (!branch) throw new CliError(`cannot find the default branch (origin/HEAD, main or master) in ${this.root}: give BASE, e.g. 'roofline-lens diff HEAD~1'`);
    try {
      const commit = this.run(['merge-base', 'HEAD', branch]).toString('utf8').trim();
      return { ref: `merge-base(HEAD, ${branch})`, commit };
    } catch {
      throw new CliError(`HEAD and ${branch} have no common ancestor: give BASE explicitly`);
    }
  }

  /** The files that differ between `base` and `head` (null: the working tree, untracked files included). */
  changes(base: string, head: string | null, pathspecs: string[]): FileChange[] {
    const args = ['diff', '--name-status', '-z', '-M', '--no-color', '--no-ext-diff', '--no-relative', base, ...(head ? [head] : []), '--', ...pathspecs];
    const out = parseNameStatus(this.run(args).toString('utf8'));
    if (head === null) {
      const untracked = this.run(['ls-files', '--others', '--exclude-standard', '-z', '--', ...pathspecs]).toString('utf8');
      for (const p of untracked.split('\0').filter(Boolean)) out.push({ status: 'added', oldPath: null, newPath: p });
    }
    return out;
  }

  /** A file's bytes at a commit (`git show REV:path`), or at the working tree when `commit` is null. */
  read(commit: string | null, file: string): Content {
    if (commit === null) return readWorktree(path.join(this.root, file));
    try {
      const size = Number(this.run(['cat-file', '-s', `${commit}:${file}`]).toString('utf8').trim());
      if (size > MAX_FILE_BYTES) return { ok: false, reason: `${size} bytes, larger than the ${MAX_FILE_BYTES} bytes read` };
      return { ok: true, bytes: git(this.root, ['show', `${commit}:${file}`]) };
    } catch (e) {
      return { ok: false, reason: `cannot read it at ${commit.slice(0, 12)}: ${(e as GitFailure).stderr || 'git show failed'}` };
    }
  }

  /** A command-line path as a pathspec relative to the repository root; outside the repository is a CliError. */
  pathspec(cwd: string, p: string): string {
    const rel = path.relative(fs.realpathSync(this.root), resolveReal(path.resolve(cwd, p)));
    if (rel.startsWith('..') || path.isAbsolute(rel)) throw new CliError(`${p} is outside the repository ${this.root}`);
    return `:(top,literal)${rel === '' ? '.' : rel.split(path.sep).join('/')}`;
  }
}

/** The real path of `p`, or of its nearest existing parent with the rest appended (deleted files). */
function resolveReal(p: string): string {
  try {
    return fs.realpathSync(p);
  } catch {
    const parent = path.dirname(p);
    return parent === p ? p : path.join(resolveReal(parent), path.basename(p));
  }
}

function readWorktree(file: string): Content {
  try {
    const st = fs.statSync(file);
    if (!st.isFile()) return { ok: false, reason: 'not a regular file in the working tree' };
    if (st.size > MAX_FILE_BYTES) return { ok: false, reason: `${st.size} bytes, larger than the ${MAX_FILE_BYTES} bytes read` };
    return { ok: true, bytes: fs.readFileSync(file) };
  } catch (e) {
    return { ok: false, reason: `cannot read it in the working tree (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})` };
  }
}

const STATUS: Record<string, FileChange['status']> = { A: 'added', M: 'modified', D: 'deleted', R: 'renamed', T: 'typechange' };

/** Parses `git diff --name-status -z`: STATUS NUL path NUL, with two paths for R (renamed) and C (copied: taken as added). */
export function parseNameStatus(out: string): FileChange[] {
  const parts = out.split('\0');
  const changes: FileChange[] = [];
  let i = 0;
  while (i < parts.length && parts[i] !== '') {
    const letter = parts[i][0];
    const status = STATUS[letter];
    if (letter === 'R' || letter === 'C') {
      changes.push(letter === 'R' ? { status: 'renamed', oldPath: parts[i + 1], newPath: parts[i + 2] } : { status: 'added', oldPath: null, newPath: parts[i + 2] });
      i += 3;
      continue;
    }
    if (status === 'added') changes.push({ status, oldPath: null, newPath: parts[i + 1] });
    else if (status === 'deleted') changes.push({ status, oldPath: parts[i + 1], newPath: null });
    else if (status) changes.push({ status, oldPath: parts[i + 1], newPath: parts[i + 1] });
    i += 2;
  }
  return changes;
}
