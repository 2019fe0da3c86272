/**
 * Architecture invariants (see README "Layout"): src/core never imports the
 * editor, Node built-ins or the DOM; only src/extension imports vscode; the
 * webview never imports the core at run time.
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';

const SRC = path.join(__dirname, '..', 'src');

function files(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? files(p) : /\.tsx?$/.test(e.name) ? [p] : [];
  });
}

function imports(file: string): string[] {
  const src = fs.readFileSync(file, 'utf8');
  const out: string[] = [];
  const re = /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|require\(\s*['"]([^'"]+)['"]\s*\)|import\(\s*['"]([^'"]+)['"]\s*\)/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(src))) out.push(m[1] ?? m[2] ?? m[3]);
  return out;
}

const NODE_BUILTINS = new Set(['fs', 'path', 'os', 'child_process', 'crypto', 'util', 'url', 'module', 'stream', 'events', 'worker_threads', 'http', 'https', 'net']);

describe('architecture', () => {
  it('src/core imports neither vscode nor Node built-ins', () => {
    const bad: string[] = [];
    for (const f of files(path.join(SRC, 'core')))
      for (const i of imports(f)) if (i === 'vscode' || i.startsWith('node:') || NODE_BUILTINS.has(i)) bad.push(`${path.relative(SRC, f)} → ${i}`);
    assert.deepEqual(bad, []);
  });

  it('only src/extension imports vscode', () => {
    const bad: string[] = [];
    for (const dir of ['core', 'cli', 'webview'])
      for (const f of files(path.join(SRC, dir))) if (imports(f).includes('vscode')) bad.push(path.relative(SRC, f));
    assert.deepEqual(bad, []);
  });

  it('the webview does not import the core at run time', () => {
    const bad: string[] = [];
    for (const f of files(path.join(SRC, 'webview'))) {
      const src = fs.readFileSync(f, 'utf8');
      for (const line of src.split('\n')) if (/^\s*import\s(?!type\b).*['"]\.\.\/core\//.test(line)) bad.push(`${path.relative(SRC, f)}: ${line.trim()}`);
    }
    assert.deepEqual(bad, []);
  });
});
