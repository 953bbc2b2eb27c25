/** TEMPORAL_FAIRNESS_WEIGHTS: fairness weights per key of the task-queue Fairness policy (src/core/priority.ts). */

/** Bytes Temporal allows in a fairness key. */
export const FAIRNESS_KEY_MAX_BYTES = 64;

/**
 * Parses TEMPORAL_FAIRNESS_WEIGHTS: `key=weight` pairs separated by commas (e.g.
 * `company:6f1c…=4,maintenance=0.5`); weights within Temporal's 0.001 … 1000.
 * @throws Error naming the first malformed pair.
 */
export function parseFairnessWeights(spec: string | undefined): Map<string, number> {
  const weights = new Map<string, number>();
  for (const raw of (spec ?? '').split(',')) {
    const pair = raw.trim();
    if (pair === '') continue;
    const eq = pair.lastIndexOf('=');
    const key = eq > 0 ? pair.slice(0, eq).trim() : '';
    const weight = eq > 0 ? Number(pair.slice(eq + 1)) : NaN;
    if (key === '' || Buffer.byteLength(key) > FAIRNESS_KEY_MAX_BYTES || !Number.isFinite(weight) || weight < 0.001 || weight > 1000) {
      throw new Error(`fairness weight "${pair}": expected key=weight with a key of at most ${FAIRNESS_KEY_MAX_BYTES} bytes and 0.001 <= weight <= 1000`);
    }
    weights.set(key, weight);
  }
  return weights;
}
