/**
 * The .vsix users install: `npm run package` (vsce, pinned in devDependencies,
 * files chosen by .vscodeignore) run into a temporary folder, then the archive
 * read back. It must hold the bundles, the grammars they load and media/, and
 * none of src/, test/, docs/, node_modules/ or source maps; stay within the
 * size budget; and carry what the Marketplace expects (licence, icon, a
 * README whose images are absolute https URLs).
 */
import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { inflateRawSync } from 'node:zlib';

const ROOT = path.join(__dirname, '..');
const BUDGET = 8 * 1024 * 1024; // bytes, grammars included; the real figure is in docs/editor.md

interface Entry {
  name: string;
  method: number;
  compressedSize: number;
  size: number;
  offset: number;
}

/** The central directory of a zip archive (no zip64, no encryption: what vsce writes). */
function zipEntries(zip: Buffer): Entry[] {
  let eocd = -1;
  for (let i = zip.length - 22; i >= Math.max(0, zip.length - 22 - 0xffff); i--) {
    if (zip.readUInt32LE(i) === 0x06054b50) {
      eocd = i;
      break;
    }
  }
  assert.ok(eocd >= 0, 'the .vsix is a zip archive (end of central directory found)');
  const count = zip.readUInt16LE(eocd + 10);
  let p = zip.readUInt32LE(eocd + 16);
  const entries: Entry[] = [];
  for (let i = 0; i < count; i++) {
    assert.equal(zip.readUInt32LE(p), 0x02014b50, `central directory entry ${i}`);
    const nameLen = zip.readUInt16LE(p + 28);
    entries.push({
      method: zip.readUInt16LE(p + 10),
      compressedSize: zip.readUInt32LE(p + 20),
      size: zip.readUInt32LE(p + 24),
      offset: zip.readUInt32LE(p + 42),
      name: zip.toString('utf8', p + 46, p + 46 + nameLen),
    });
    p += 46 + nameLen + zip.readUInt16LE(p + 30) + zip.readUInt16LE(p + 32);
  }
  return entries;
}

function zipRead(zip: Buffer, e: Entry): Buffer {
  assert.equal(zip.readUInt32LE(e.offset), 0x04034b50, `local header of ${e.name}`);
  const start = e.offset + 30 + zip.readUInt16LE(e.offset + 26) + zip.readUInt16LE(e.offset + 28);
  const raw = zip.subarray(start, start + e.compressedSize);
  if (e.method === 0) return raw;
  assert.equal(e.method, 8, `${e.name} is stored or deflated`);
  return inflateRawSync(raw);
}

describe('the .vsix (npm run package)', function () {
  this.timeout(180_000);
  const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
  const vsixName = `${manifest.name}-${manifest.version}.vsix`;
  let out: string;
  let zip: Buffer;
  let entries: Entry[];
  let files: string[]; // below extension/, as installed

  before(() => {
    out = fs.mkdtempSync(path.join(os.tmpdir(), 'roofline-lens-vsix-'));
    // The script users run (README "In VS Code"); --out DIR keeps vsce's default file name.
    execFileSync('npm', ['run', 'package', '--silent', '--', '--out', out], { cwd: ROOT, stdio: 'pipe', encoding: 'utf8' });
    zip = fs.readFileSync(path.join(out, vsixName));
    entries = zipEntries(zip);
    files = entries.filter((e) => e.name.startsWith('extension/')).map((e) => e.name.slice('extension/'.length));
  });

  after(() => {
    if (out) fs.rmSync(out, { recursive: true, force: true });
  });

  it(`is named ${vsixName} and holds the VSIX manifest`, () => {
    assert.deepEqual(fs.readdirSync(out), [vsixName]);
    const names = entries.map((e) => e.name);
    assert.ok(names.includes('extension.vsixmanifest'), 'extension.vsixmanifest');
    assert.ok(names.includes('[Content_Types].xml'), '[Content_Types].xml');
    assert.deepEqual(names.filter((n) => !n.startsWith('extension/')).sort(), ['[Content_Types].xml', 'extension.vsixmanifest']);
  });

  it('ships no sources, tests, docs, dependencies or source maps', () => {
    for (const f of files) {
      assert.ok(!/^(src|test|docs|examples|scripts|node_modules|\.e2e|\.ci)\//.test(f), `${f} must not be packaged`);
      assert.ok(!f.endsWith('.map') && !f.endsWith('.ts'), `${f} must not be packaged`);
    }
    // Everything else is on an allow-list: a new file in the package is a decision, not an accident.
    const allowed = /^(package\.json|readme\.md|changelog\.md|LICENSE\.txt|dist\/extension\.js|dist\/worker\.js|dist\/worker-main\.js|dist\/web\/extension\.js|dist\/web\/worker\.js|dist\/webview\.js|dist\/[\w-]+\.wasm|media\/[\w.-]+)$/;
    const stray = files.filter((f) => !allowed.test(f));
    assert.deepEqual(stray, [], 'files outside the allow-list');
  });

  it('ships the bundles, every grammar the build copies to dist/, and media/', () => {
    const pkg = JSON.parse(zipRead(zip, entries.find((e) => e.name === 'extension/package.json')!).toString('utf8'));
    const need = [
      pkg.main.replace(/^\.\//, ''),
      pkg.browser.replace(/^\.\//, ''),
      // The analysis workers the desktop and web extensions start (docs/architecture.md).
      'dist/worker.js',
      'dist/worker-main.js',
      'dist/web/worker.js',
      'dist/webview.js',
      pkg.icon,
      'media/panel.css',
      'LICENSE.txt',
      'readme.md',
      'changelog.md',
    ];
    const wasm = fs.readdirSync(path.join(ROOT, 'dist')).filter((f) => f.endsWith('.wasm')).map((f) => `dist/${f}`);
    assert.deepEqual(wasm.sort(), ['dist/tree-sitter-cuda.wasm', 'dist/tree-sitter-python.wasm', 'dist/web-tree-sitter.wasm']);
    for (const f of [...need, ...wasm]) assert.ok(files.includes(f), `${f} is packaged`);
    for (const f of fs.readdirSync(path.join(ROOT, 'media'))) assert.ok(files.includes(`media/${f}`), `media/${f} is packaged`);
    // The packaged copies are the built ones, byte for byte.
    for (const f of ['dist/extension.js', 'dist/worker.js', 'dist/worker-main.js', 'dist/web/extension.js', 'dist/web/worker.js', 'dist/webview.js', ...wasm]) {
      const e = entries.find((x) => x.name === `extension/${f}`)!;
      assert.ok(zipRead(zip, e).equals(fs.readFileSync(path.join(ROOT, f))), `${f} matches the build`);
    }
  });

  it(`stays within ${BUDGET / 1024 / 1024} MB`, () => {
    assert.ok(zip.length <= BUDGET, `${vsixName} is ${(zip.length / 1024 / 1024).toFixed(2)} MB`);
  });

  it('has what the Marketplace expects: repository, licence file, icon, banner, categories, keywords', () => {
    assert.match(manifest.repository?.url ?? '', /^https:\/\/github\.com\/[\w-]+\/[\w-]+(\.git)?$/);
    assert.equal(manifest.license, 'MIT');
    const license = zipRead(zip, entries.find((e) => e.name === 'extension/LICENSE.txt')!).toString('utf8');
    assert.match(license, /^MIT License/);
    const icon = zipRead(zip, entries.find((e) => e.name === `extension/${manifest.icon}`)!);
    assert.ok(icon.subarray(1, 4).toString('latin1') === 'PNG', 'the icon is a PNG');
    assert.ok(icon.readUInt32BE(16) >= 128 && icon.readUInt32BE(20) >= 128, 'the icon is at least 128×128');
    assert.match(manifest.galleryBanner?.color ?? '', /^#[0-9a-f]{6}$/i);
    assert.ok(manifest.categories?.length > 0 && manifest.keywords?.length > 0);
    const vsixManifest = zipRead(zip, entries.find((e) => e.name === 'extension.vsixmanifest')!).toString('utf8');
    assert.match(vsixManifest, /<License>extension\/LICENSE\.txt<\/License>/);
    assert.match(vsixManifest, new RegExp(`<Icon>extension/${manifest.icon.replace('.', '\\.')}</Icon>`));
  });

  it("the packaged README's images and links are absolute https URLs", () => {
    const readme = zipRead(zip, entries.find((e) => e.name === 'extension/readme.md')!).toString('utf8');
    const images = [...readme.matchAll(/!\[[^\]]*\]\(([^)\s]+)/g), ...readme.matchAll(/<img[^>]*\ssrc="([^"]+)"/g)].map((m) => m[1]);
    assert.ok(images.length >= 3, 'the README shows its screenshots');
    for (const src of images) assert.match(src, /^https:\/\//, `image ${src}`);
    // Every image the source README shows is one the repository holds (what the rewritten URL points at).
    const source = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    for (const m of source.matchAll(/!\[[^\]]*\]\(([^)\s]+)/g)) {
      if (!/^https?:/.test(m[1])) assert.ok(fs.existsSync(path.join(ROOT, m[1])), `${m[1]} exists in the repository`);
    }
    const links = [...readme.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]).filter((l) => !l.startsWith('#'));
    for (const l of links) assert.match(l, /^https:\/\//, `link ${l}`);
  });
});
