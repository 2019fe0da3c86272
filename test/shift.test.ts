/**
 * Moving a kept kernel by an edit that added or removed lines
 * (src/core/engine/shift.ts): every line it names moves, numbers that are not
 * lines do not, and anything that may hold a line the shift cannot move
 * keeps the kernel from being moved (it is analysed again).
 */
import { strict as assert } from 'node:assert';
import { shiftLines } from '../src/core/engine/shift';
import { num, sym } from '../src/core/sym/expr';

// Two lines added after row 9 (line 10): lines 11 and after move down by two; rows 10 and 11 are the new ones.
const ENTER = { startRow: 10, oldEndRow: 9, newEndRow: 11 };

describe('moving a kernel by an edit (engine/shift.ts)', () => {
  it('moves line fields, a range in rows, and "line N" / "lines N, M" in texts; leaves other numbers', () => {
    const moved = shiftLines(
      {
        line: 12,
        range: { startLine: 11, endLine: 20 },
        body: { line: 5, label: 'for k in range(0, K, 64)', events: [{ line: 15, what: 'tl.load a [64]' }] },
        diagnostics: [{ line: 30, message: '`if x > 0` (line 14): the costlier arm is counted' }],
        bindingSources: { BLOCK: { source: 'launch', detail: 'launch at line 40' } },
        notes: ['lines 12, 3 differ', '(line 12, 3 configs)'],
        count: 4096,
      },
      ENTER,
    );
    assert.deepEqual(moved, {
      line: 14,
      range: { startLine: 13, endLine: 22 },
      body: { line: 5, label: 'for k in range(0, K, 64)', events: [{ line: 17, what: 'tl.load a [64]' }] },
      diagnostics: [{ line: 32, message: '`if x > 0` (line 16): the costlier arm is counted' }],
      bindingSources: { BLOCK: { source: 'launch', detail: 'launch at line 42' } },
      notes: ['lines 14, 3 differ', '(line 14, 3 configs)'],
      count: 4096,
    });
  });

  it('a value under a name the user chose (a parameter called `line`) is not a line', () => {
    assert.deepEqual(shiftLines({ bindings: { line: 4096, endLine: 7 }, launchSizes: { loopLine: 3 } }, ENTER), { bindings: { line: 4096, endLine: 7 }, launchSizes: { loopLine: 3 } });
  });

  it('a pipeline launch\'s host tensor identities are kept as they are (compared only with each other); what holds no line is shared', () => {
    const fact = { name: 'forward', line: 20, endLine: 30, launches: [{ kernel: 'k', line: 25, callLine: 25, repeat: 1, tensors: { x_ptr: 'forward.x@21', y_ptr: 'forward#24.y@0' }, names: { 'forward.x@21': 'x' }, inputs: { kernel: 'k', line: 25, label: 'launch at line 25' } }] };
    const moved = shiftLines(fact, ENTER)!;
    assert.deepEqual(moved, { ...fact, line: 22, endLine: 32, launches: [{ ...fact.launches[0], line: 27, callLine: 27, inputs: { kernel: 'k', line: 27, label: 'launch at line 27' } }] });
    assert.equal(moved.launches[0].tensors, fact.launches[0].tensors, 'the same record');
    // Only a record of identities: a list under the same key is walked (and its symbol-named texts keep it from moving).
    assert.equal(shiftLines({ tensors: ['x@12'] }, ENTER), undefined);
  });

  it('moved again, what held no line is shared unwalked, and lines still move', () => {
    const peaks = { fp32: 67e12, note: 'vector' };
    const ir = { line: 12, peaks, events: [{ line: 14, what: 'load' }] };
    const once = shiftLines(ir, ENTER)!;
    const twice = shiftLines(once, ENTER)!;
    assert.deepEqual(twice, { line: 16, peaks, events: [{ line: 18, what: 'load' }] });
    assert.equal(twice.peaks, peaks);
    // A lineless record under a name the user chose is still walked there (its context differs).
    assert.deepEqual(shiftLines({ bindings: { peaks } }, ENTER), { bindings: { peaks } });
  });

  it('not moved: a line on the rows the edit touched, a symbol named by a line, an object it does not know', () => {
    // The edit removed line 11 and put two new ones there: line 11 of before is gone.
    assert.equal(shiftLines({ line: 11 }, { startRow: 10, oldEndRow: 10, newEndRow: 11 }), undefined);
    for (const name of ['trips_L12', '⟨k@12⟩', 'size@61#1', 'it@30', 'n_L40x']) assert.equal(shiftLines({ count: sym(name) }, ENTER), undefined, name);
    assert.deepEqual(shiftLines({ count: sym('BLOCK_M') }, ENTER), { count: sym('BLOCK_M') });
    assert.deepEqual(shiftLines({ count: num(12) }, ENTER), { count: num(12) });
    assert.equal(shiftLines({ seen: new Map([['line', 12]]) }, ENTER), undefined);
    assert.equal(shiftLines({ trips: 'trips_L12 unknown' }, ENTER), undefined);
  });
});
