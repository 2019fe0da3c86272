import * as path from 'node:path';
import { assertSane, check, fixtures } from './check';

describe('Triton fixtures', () => {
  for (const f of fixtures('triton', ['.py'])) {
    it(path.basename(f), async () => {
      assertSane(await check(f));
    });
  }
});
