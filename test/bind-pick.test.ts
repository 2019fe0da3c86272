/**
 * Bind Symbol's value quick pick (src/extension/bindPick.ts, pure): the items
 * built from a kernel report's bindings and suggestions. Reports come from the
 * real core on test/fixtures/suggestions, literals where a branch needs one.
 */
import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import type { KernelReport } from '../src/core/report/types';
import { bindValueItems, itemsForText, MAX_POWERS, powersNear, targetItem, typedValueItem, type ValueItem } from '../src/extension/bindPick';
import { analyzeFile } from './check';

const DIR = path.join(__dirname, 'fixtures', 'suggestions');

async function kernelOf(file: string, name: string, set: Record<string, number> = {}): Promise<KernelReport> {
  const r = await analyzeFile(path.join(DIR, file), { set });
  return r.kernels.find((k) => k.name === name)!;
}

/** `label — description` per item, separators as `## title`. */
function lines(items: ValueItem[]): string[] {
  return items.map((i) => (i.kind === 'separator' ? `## ${i.label}` : `${i.label} — ${i.description ?? ''}`));
}

describe('extension: the Bind Symbol value quick pick', () => {
  it('a bound symbol: its value, then every autotune config, with their source', async () => {
    const k = await kernelOf('configs_and_sites.py', 'scale_kernel');
    const items = bindValueItems(k, 'BLOCK_M');
    assert.deepEqual(lines(items).slice(0, 3), [
      '## Suggested for BLOCK_M',
      '128 — current · triton.Config #1 of 3 (line 48)',
      '64 — triton.Config #2 of 3 (line 49)',
    ]);
    // No value twice: 128 is the current binding and config #1 (and #3).
    const labels = items.filter((i) => i.kind === 'value').map((i) => i.label);
    assert.equal(new Set(labels).size, labels.length);
  });

  it('the other call sites of the launcher: "8192 — host: scale(…) at line 84"', async () => {
    const k = await kernelOf('configs_and_sites.py', 'scale_kernel');
    const items = lines(bindValueItems(k, 'M'));
    assert.equal(items[1], '4096 — current · host: scale(torch.randn((4096, 1024), device=… at line 83');
    assert.equal(items[2], '8192 — host: scale(torch.randn((8192, 512), device="… at line 84');
  });

  it('an unbound symbol: the sizes the file gives other symbols, then powers of two near them', async () => {
    // K: a symbol this kernel does not have bound (as in a matmul whose K comes from a tensor).
    const k = await kernelOf('configs_and_sites.py', 'scale_kernel');
    const items = bindValueItems(k, 'K');
    const text = lines(items);
    assert.equal(text[0], '## Values in this file');
    assert.ok(text.includes('4096 — M · host: scale(torch.randn((4096, 1024), device=… at line 83'), text.join('\n'));
    assert.ok(text.includes('8192 — M · host: scale(torch.randn((8192, 512), device="… at line 84'), text.join('\n'));
    assert.ok(text.includes('64 — BLOCK_N · triton.Config #1 of 3 (line 48)'), text.join('\n'));
    const powers = text.slice(text.indexOf('## Powers of two') + 1);
    assert.ok(powers.length > 0 && powers.length <= MAX_POWERS, powers.join('\n'));
    for (const p of powers) assert.match(p, /^\d+ — 2\^\d+ · a power of two near \d+$/);
    // Host sizes before autotune values; no num_warps; powers near 4096 (M) but none near a 4 or an 8.
    assert.ok(text.indexOf('4096 — M · host: scale(torch.randn((4096, 1024), device=… at line 83') < text.indexOf('64 — BLOCK_N · triton.Config #1 of 3 (line 48)'));
    assert.ok(!text.some((t) => t.includes('num_warps')), text.join('\n'));
    assert.ok(powers.includes('2048 — 2^11 · a power of two near 4096'), powers.join('\n'));
    assert.ok(!powers.some((p) => /^(2|4|8|16) —/.test(p)), powers.join('\n'));
  });

  it('only tile sizes in the file (the e2e matmul): powers near them, then the common sizes 2^10 … 2^14', () => {
    const k = {
      bindings: { BLOCK_K: 64, BLOCK_M: 128, 'tl.num_programs(0)': 32 },
      bindingSources: { BLOCK_K: { source: 'launch', detail: 'launch at line 34' }, BLOCK_M: { source: 'launch', detail: 'launch at line 34' }, 'tl.num_programs(0)': { source: 'launch', detail: 'grid' } },
      unbound: ['K'],
    } as unknown as KernelReport;
    assert.deepEqual(lines(bindValueItems(k, 'K')), [
      '## Values in this file',
      '64 — BLOCK_K · launch at line 34',
      '128 — BLOCK_M · launch at line 34',
      '## Powers of two',
      '32 — 2^5 · a power of two near 64',
      '256 — 2^8 · a power of two near 128',
      '1024 — 2^10 · a common size',
      '2048 — 2^11 · a common size',
      '4096 — 2^12 · a common size',
      '8192 — 2^13 · a common size',
      '16384 — 2^14 · a common size',
    ]);
  });

  it('a launch quantity is offered only its own values (no other symbol sizes)', async () => {
    const k = await kernelOf('configs_and_sites.py', 'scale_kernel');
    const text = lines(bindValueItems(k, 'tl.num_programs(0)'));
    assert.ok(!text.includes('## Values in this file'), text.join('\n'));
  });

  it('nothing to go on: the common sizes 2^10 … 2^14; an undecided boolean: true and false only', () => {
    assert.deepEqual(
      bindValueItems(undefined, 'K').map((i) => i.label),
      ['Powers of two', '1024', '2048', '4096', '8192', '16384'],
    );
    const k = { bindings: {}, bindingSources: {}, unbound: [], undecided: ['EVEN_K'] } as unknown as KernelReport;
    assert.deepEqual(lines(bindValueItems(k, 'EVEN_K')), [
      '## Suggested for EVEN_K',
      'true — one of the two choices (the costlier is counted while unbound)',
      'false — the other choice',
    ]);
  });

  it('the last item says where the value goes and offers to change it', () => {
    const items = bindValueItems(undefined, 'K', 'pragma');
    assert.deepEqual(items.at(-1), targetItem('pragma'));
    assert.equal(items.at(-1)!.kind, 'target');
    assert.match(targetItem('settings').label, /rooflineLens\.bindings setting$/);
  });

  it('powers of two near a value', () => {
    assert.deepEqual(powersNear(4096), [2048, 8192]);
    assert.deepEqual(powersNear(1000), [512, 1024]);
    assert.deepEqual(powersNear(1), [2]);
    assert.deepEqual(powersNear(0), []);
    assert.deepEqual(powersNear(Number.NaN), []);
  });

  it('free entry: a typed value comes first and replaces the same value below; anything else says why not', () => {
    const base = bindValueItems(undefined, 'K');
    assert.deepEqual(typedValueItem('2**12'), { kind: 'typed', label: '4096', description: 'the value typed', value: 4096 });
    assert.equal(typedValueItem('  '), undefined);
    assert.equal(typedValueItem('abc')?.kind, 'invalid');
    assert.equal(typedValueItem('1 2')?.kind, 'invalid');
    assert.equal(typedValueItem('true')?.value, true);
    const shown = itemsForText(base, '4096');
    assert.equal(shown[0].kind, 'typed');
    assert.equal(shown.filter((i) => i.label === '4096').length, 1);
    assert.equal(itemsForText(base, ''), base);
    assert.equal(itemsForText(base, 'x').length, base.length + 1);
  });
});
