/**
 * The demo and bench runners' own logic: the demo finds one part per family by the manifests'
 * names (and refuses a part file that names no family); the bench's section list, `--only`
 * parsing and number formats.
 */
import { FAMILIES } from '../../../src/families';
import { percentile, ratio } from '../../../scripts/bench/measure';
import { parseOnly, SECTION_LETTERS } from '../../../scripts/bench/options';
import { SECTIONS } from '../../../scripts/bench/sections';
import { burstPlan } from '../../../scripts/bench/sections/m-mixed-burst';
import { loadDemoParts } from '../../../scripts/demo/parts';

describe('demo parts', () => {
  it('finds a part for every family, in the manifests order', async () => {
    const { parts, without } = await loadDemoParts();
    expect(parts.map((p) => p.family)).toEqual(FAMILIES.map((f) => f.name));
    expect(without).toEqual([]);
    for (const { part } of parts) expect(typeof part.run).toBe('function');
  });

  it('names a family without a part, and refuses a part file of no family', async () => {
    const { parts, without } = await loadDemoParts([...FAMILIES, { name: 'toy' }]);
    expect(without).toEqual(['toy']);
    expect(parts).toHaveLength(FAMILIES.length);
    await expect(loadDemoParts(FAMILIES.slice(1))).rejects.toThrow(`scripts/demo/families/${FAMILIES[0]!.name}.ts names no family`);
  });
});

describe('bench sections', () => {
  it('has one section per letter; (f) and (j) need no server, (g), (l) and (m) the portal', () => {
    expect(SECTIONS.map((s) => s.letter).sort()).toEqual([...SECTION_LETTERS]);
    expect(SECTIONS.filter((s) => s.needs === 'nothing').map((s) => s.letter).sort()).toEqual(['f', 'j']);
    expect(SECTIONS.filter((s) => s.needs === 'stack' && s.portal).map((s) => s.letter).sort()).toEqual(['g', 'l', 'm']);
    expect(SECTIONS.at(-1)?.letter).toBe('h');
  });

  it('splits a mixed burst over the four families into exactly its number of jobs (a scrap is two)', () => {
    for (const total of [100, 1000, 333]) {
      const p = burstPlan(total);
      expect(2 * p.scraps + p.aiRuns + p.portalLinks + p.questions).toBe(total);
      expect(Math.min(p.scraps, p.aiRuns, p.portalLinks, p.questions)).toBeGreaterThan(0);
    }
  });

  it('parses --only as letters with or without commas and refuses unknown ones', () => {
    expect(parseOnly(undefined)).toBeUndefined();
    expect([...parseOnly('c,a')!]).toEqual(['c', 'a']);
    expect([...parseOnly('CG')!]).toEqual(['c', 'g']);
    expect(() => parseOnly('c,z')).toThrow('--only takes section letters');
    expect(() => parseOnly(',')).toThrow('--only takes section letters');
  });

  it('takes nearest-rank percentiles and formats ratios', () => {
    expect(percentile([4, 1, 3, 2], 50)).toBe(2);
    expect(percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 95)).toBe(10);
    expect(percentile([], 50)).toBeNaN();
    expect(ratio(1.2345)).toBe('1.23×');
    expect(ratio(1 / 10_001)).toBe('0.00010×');
    expect(ratio(Number.NaN)).toBe('n/a×');
  });
});
