/**
 * Jest test sequencer: longest files first, so that short ones fill the workers' tails. Jest's own
 * order is kept where it has durations from an earlier run (its cache); a file it has never timed
 * (a fresh checkout, CI) is ranked by what it starts: a file that starts a stack, a child process,
 * a migration, an embedded database or a time-skipping server goes before one that starts none,
 * and within each group larger files go first (jest's own fallback).
 */
const { readFileSync } = require('node:fs');
const Sequencer = require('@jest/test-sequencer').default;

/** What makes a test file slow: real servers, processes and migrations it starts itself. */
const HEAVY = /\b(startStack|spawn|execFile|migrateDeploy|runPrisma|startEmbeddedPostgres|startPostgres|createTimeSkippingEnv|timeSkippingTestEnv)\(/g;

/** Rank of a file jest has not timed: the number of heavy starts it makes (capped), then its size. */
function rank(path) {
  let source = '';
  try {
    source = readFileSync(path, 'utf8');
  } catch {
    return { heavy: 0, size: 0 };
  }
  return { heavy: Math.min((source.match(HEAVY) ?? []).length, 3), size: source.length };
}

class HeavyFirstSequencer extends Sequencer {
  sort(tests) {
    const timed = super.sort(tests);
    if (timed.some((t) => t.duration != null)) return timed;
    const ranks = new Map(tests.map((t) => [t.path, rank(t.path)]));
    return [...timed].sort((a, b) => {
      const ra = ranks.get(a.path);
      const rb = ranks.get(b.path);
      return rb.heavy - ra.heavy || rb.size - ra.size;
    });
  }
}

module.exports = HeavyFirstSequencer;
