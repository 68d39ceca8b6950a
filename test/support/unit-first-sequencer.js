// @ts-check
const Sequencer = require('@jest/test-sequencer').default;

/**
 * Jest's own order (the failures of the last run first, then the slowest,
 * from its timing cache; by file size without one), except that every spec
 * of the unit project comes before the rest. Unit specs take no run-alone
 * lock (they need no PostgreSQL: test/support/run-alone.ts), so they must
 * not run beside a spec that times the machine: run first, they are all
 * done within the first seconds (about 13 s of them in all).
 */
class UnitFirstSequencer extends Sequencer {
  /**
   * @param {import('@jest/test-result').Test[]} tests
   * @returns {Promise<import('@jest/test-result').Test[]>}
   */
  async sort(tests) {
    const sorted = await super.sort(tests);
    const isUnit = (/** @type {import('@jest/test-result').Test} */ t) => t.context.config.displayName?.name === 'unit';
    return [...sorted.filter(isUnit), ...sorted.filter((t) => !isUnit(t))];
  }
}

module.exports = UnitFirstSequencer;
