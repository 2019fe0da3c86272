/**
 * Delta debugging (ddmin): the smallest input, by lines and then by
 * characters, that still shows the same bug. Bounded by a trial count and a
 * wall-clock limit, since each trial is a whole analysis (and a hang's
 * trials are slow by definition).
 */

export interface MinimiseLimits {
  maxTrials: number;
  maxMs: number;
}

interface Trials {
  left: number;
  deadline: number;
}

function exhausted(t: Trials): boolean {
  return t.left <= 0 || Date.now() > t.deadline;
}

/** ddmin over `units` (joined with `sep`): removes chunks while `fails` still holds. */
async function ddmin(units: string[], sep: string, fails: (text: string) => Promise<boolean>, t: Trials): Promise<string[]> {
  let cur = units;
  let n = 2;
  while (cur.length >= 2 && !exhausted(t)) {
    const size = Math.ceil(cur.length / n);
    let reduced = false;
    for (let start = 0; start < cur.length && !exhausted(t); start += size) {
      const candidate = [...cur.slice(0, start), ...cur.slice(start + size)];
      t.left--;
      if (await fails(candidate.join(sep))) {
        cur = candidate;
        n = Math.max(n - 1, 2);
        reduced = true;
        break;
      }
    }
    if (!reduced) {
      if (n >= cur.length) break;
      n = Math.min(cur.length, n * 2);
    }
  }
  return cur;
}

/** Shrinks `text` while `fails(text)` stays true; returns `text` unchanged when it does not fail. */
export async function minimise(text: string, fails: (text: string) => Promise<boolean>, limits: MinimiseLimits): Promise<string> {
  const t: Trials = { left: limits.maxTrials, deadline: Date.now() + limits.maxMs };
  if (!(await fails(text))) return text;
  const lines = (await ddmin(text.split('\n'), '\n', fails, t)).join('\n');
  return (await ddmin([...lines], '', fails, t)).join('');
}
