// Mocha's spec reporter plus one plain closing line, "mocha: N passed, N failed[, N skipped]",
// which CI systems that do not know mocha's own summary can read.
'use strict';
const Mocha = require('mocha');
const { Spec } = Mocha.reporters;
const { EVENT_RUN_END } = Mocha.Runner.constants;

class SpecWithTotals extends Spec {
  constructor(runner, options) {
    super(runner, options);
    runner.once(EVENT_RUN_END, () => {
      const s = runner.stats || {};
      const skipped = s.pending ? `, ${s.pending} skipped` : '';
      process.stdout.write(`mocha: ${s.passes || 0} passed, ${s.failures || 0} failed${skipped}\n`);
    });
  }
}

module.exports = SpecWithTotals;
