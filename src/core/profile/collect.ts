/**
 * Collects per-launch problems and reports each kind once per file, naming
 * the kernels it concerns ("… for 3 launches of `add_kernel`"), so a large
 * export does not bury the user in identical messages.
 */
import { describeSubjects, pdiag, type ProfileMessageId } from './messages';
import type { ProfileDiagnostic, ProfileSeverity } from './types';

interface Pending {
  code: ProfileMessageId;
  severity: ProfileSeverity;
  render: (subjects: string) => string;
  names: string[];
  lines: number[];
}

export class DiagnosticCollector {
  private readonly pending = new Map<string, Pending>();
  private readonly direct: ProfileDiagnostic[] = [];

  /** A message about the whole file. */
  add(d: ProfileDiagnostic): void {
    this.direct.push(d);
  }

  /** A problem of one launch; problems with the same key become one message. */
  note(key: string, code: ProfileMessageId, severity: ProfileSeverity, render: (subjects: string) => string, kernel: string, line?: number): void {
    let p = this.pending.get(key);
    if (!p) {
      p = { code, severity, render, names: [], lines: [] };
      this.pending.set(key, p);
    }
    p.names.push(kernel);
    if (line !== undefined) p.lines.push(line);
  }

  /** All messages, errors first, in the order they were first seen within a severity. */
  finish(): ProfileDiagnostic[] {
    const grouped = [...this.pending.values()].map((p) =>
      pdiag(p.code, p.severity, p.render(describeSubjects(p.names, p.lines)), p.lines.length === 1 ? p.lines[0] : undefined),
    );
    const all = [...this.direct, ...grouped];
    const rank = { error: 0, warning: 1, info: 2 };
    return all.map((d, i) => ({ d, i })).sort((a, b) => rank[a.d.severity] - rank[b.d.severity] || a.i - b.i).map((x) => x.d);
  }
}
