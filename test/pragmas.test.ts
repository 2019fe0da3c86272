/**
 * `roofline:` pragma comments (src/core/bindings.ts `readPragmas`): found
 * from the word, with the comment opener before it across white space, one
 * per line (the rest of a line is the pragma's), their line the opener's:
 * what the pattern `(?:#|//|/\*)\s*roofline:\s*([^\n]*)` matched.
 */
import { strict as assert } from 'node:assert';
import { readPragmas } from '../src/core/bindings';

const CASES: [string, string, [string, number | boolean | string, number][]][] = [
  ['Python comment', 'x = 1\n# roofline: M=4096 N=512\n', [['M', 4096, 2], ['N', 512, 2]]],
  ['C++ line comment, commas', '// roofline: BLOCK=128, n=1024', [['BLOCK', 128, 1], ['n', 1024, 1]]],
  ['block comment ends the pragma', '/* roofline: K=64 */ int k;', [['K', 64, 1]]],
  ['the opener on the line before (white space between)', 'a\n#\n   roofline: M=8\n', [['M', 8, 2]]],
  ['no opener: not a pragma', 'x = "roofline: M=8"\nroofline: N=2\n', []],
  ['a second on the same line is read as part of the first', '# roofline: A=1 # roofline: B=2\n', [['A', 1, 1], ['B', 2, 1]]],
  ['after a match, the next line', '# roofline: A=1 #\n roofline: B=2\n# roofline: C=3', [['A', 1, 1], ['C', 3, 3]]],
  ['`//#` and `///`: the opener nearest the word', '//# roofline: A=1\n/// roofline: B=2\n', [['A', 1, 1], ['B', 2, 2]]],
  ['`/*/` is no opener', '/*/ roofline: A=1\n', []],
  ['names with dots and calls; empty values skipped', '# roofline: blockDim.x=256 f(x)=2 E= =3', [['blockDim.x', 256, 1], ['f(x)', 2, 1]]],
  ['none', 'def f():\n    pass\n', []],
];

describe('roofline: pragma comments', () => {
  for (const [what, source, expected] of CASES) {
    it(what, () => {
      assert.deepEqual(
        readPragmas(source).map((p) => [p.name, p.value, p.line]),
        expected,
      );
    });
  }
});
