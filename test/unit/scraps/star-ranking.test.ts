import { createAiProvider } from '../../../src/ai';
import { createScrapsAi } from '../../../src/ai/scraps';
import {
  cosineSimilarity,
  matchRepo,
  prepareCards,
  rankRecommendations,
  repoText,
  starPrior,
  STAR_RANKING,
  type RepoMatch,
  type StarredRepoInput,
} from '../../../src/domain/scraps/star-ranking';
import { loadConfig } from '../../../src/families';
import { PG_INDEXES, PG_PARTIAL } from '../../fixtures/texts';

const repo = (fullName: string, stars: number, description: string | null = null, topics: string[] = []): StarredRepoInput => ({
  fullName, htmlUrl: `https://github.com/${fullName}`, description, language: null, stars, topics,
});

describe('SAN-12 star ranking', () => {
  it('embeds name (also split into words), description, topics and language', () => {
    expect(repoText({ fullName: 'acme/pg-index_advisor', description: 'Suggests indexes', topics: ['postgresql', 'sql'], language: 'Go' }))
      .toBe('acme/pg-index_advisor\npg index advisor\nSuggests indexes\ntopics: postgresql, sql\nGo');
    expect(repoText({ fullName: 'a/b', description: null, topics: [], language: null })).toBe('a/b\nb');
  });

  it('cosine similarity: 1 for the same direction, 0 for orthogonal or zero vectors', () => {
    expect(cosineSimilarity([1, 2, 3], [2, 4, 6])).toBeCloseTo(1);
    expect(cosineSimilarity([1, 0], [0, 1])).toBe(0);
    expect(cosineSimilarity([0, 0], [1, 1])).toBe(0);
    expect(() => cosineSimilarity([1], [1, 2])).toThrow(/lengths/);
  });

  it('matchRepo keeps the top 3 cards, their max and mean', () => {
    const cards = prepareCards([
      { cardId: 'a', embedding: [1, 0, 0] },
      { cardId: 'b', embedding: [1, 1, 0] },
      { cardId: 'c', embedding: [0, 1, 0] },
      { cardId: 'd', embedding: [0, 0, 1] },
    ]);
    const m = matchRepo([1, 0, 0], cards);
    expect(m.maxSimilarity).toBeCloseTo(1);
    expect(m.topMean).toBeCloseTo((1 + Math.SQRT1_2 + 0) / 3);
    expect(m.cards.map((c) => c.cardId)).toEqual(['a', 'b']); // similarity 0 is no reason
    expect(matchRepo([1, 0, 0], [])).toEqual({ maxSimilarity: 0, topMean: 0, cards: [] });
  });

  it('score = 0.7 × max + 0.3 × top-3 mean + a log-stars prior of at most 0.05', () => {
    const repos = [repo('a/popular', 100_000), repo('b/relevant', 10), repo('c/none', 0)];
    const matches: RepoMatch[] = [
      { maxSimilarity: 0.2, topMean: 0.1, cards: [] },
      { maxSimilarity: 0.6, topMean: 0.4, cards: [{ cardId: 'k1', similarity: 0.6 }, { cardId: 'gone', similarity: 0.3 }] },
      { maxSimilarity: 0, topMean: 0, cards: [] },
    ];
    const items = rankRecommendations(repos, matches, new Map([['k1', 'PostgreSQL partial indexes']]));
    expect(items.map((i) => [i.rank, i.fullName])).toEqual([[1, 'b/relevant'], [2, 'a/popular'], [3, 'c/none']]);
    expect(items[0]!.relevance).toBeCloseTo(0.7 * 0.6 + 0.3 * 0.4);
    expect(items[0]!.score).toBeCloseTo(0.54 + starPrior(10, 100_000), 5);
    expect(items[1]!.score).toBeCloseTo(0.17 + STAR_RANKING.priorWeight, 5); // the most starred gets the full prior
    expect(items[0]!.reasons).toEqual([{ cardId: 'k1', title: 'PostgreSQL partial indexes', similarity: 0.6 }]);
    expect(items[2]!.score).toBe(0);
  });

  it('the prior only breaks near ties; ties fall back to stars then name', () => {
    expect(starPrior(0, 10)).toBe(0);
    expect(starPrior(5, 0)).toBe(0);
    expect(starPrior(1_000_000, 1_000_000)).toBeCloseTo(0.05);
    const same: RepoMatch = { maxSimilarity: 0.3, topMean: 0.3, cards: [] };
    const items = rankRecommendations([repo('z/a', 5), repo('a/b', 5), repo('m/c', 50)], [same, same, same], new Map());
    expect(items.map((i) => i.fullName)).toEqual(['m/c', 'a/b', 'z/a']);
    expect(() => rankRecommendations([repo('a/b', 1)], [], new Map())).toThrow(/1 repositories but 0 matches/);
  });

  it('with the local AI provider, a PostgreSQL repository outranks a cooking one for PostgreSQL cards', async () => {
    const ai = createScrapsAi(createAiProvider(loadConfig({}).ai));
    const [c1, c2] = await ai.embed([PG_INDEXES, PG_PARTIAL]);
    const cards = prepareCards([{ cardId: 'pg1', embedding: c1! }, { cardId: 'pg2', embedding: c2! }]);
    const repos = [
      repo('chef/sourdough-recipes', 90_000, 'Sourdough bread recipes: feeding the starter, proofing dough, baking in a Dutch oven', ['baking', 'cooking']),
      repo('acme/pg-index-advisor', 40, 'Finds missing B-tree and partial indexes in PostgreSQL from EXPLAIN ANALYZE plans', ['postgresql', 'indexing']),
    ];
    const vectors = await ai.embed(repos.map(repoText));
    const items = rankRecommendations(repos, vectors.map((v) => matchRepo(v, cards)), new Map([['pg1', 'B-tree indexes'], ['pg2', 'Partial indexes']]));
    expect(items[0]!.fullName).toBe('acme/pg-index-advisor');
    expect(items[0]!.relevance).toBeGreaterThan(items[1]!.relevance + 0.05);
    expect(items[0]!.reasons.map((r) => r.title).sort()).toEqual(['B-tree indexes', 'Partial indexes']);
  });
});
