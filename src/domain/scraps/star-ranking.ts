/**
 * SAN-12 ranking of a user's starred GitHub repositories against their knowledge cards. Pure: no
 * I/O, unit-tested without servers.
 *
 * Rule, for repository r with embedding e(r) and the user's cards c₁…cₙ with embeddings e(cᵢ),
 * sᵢ = cosine(e(r), e(cᵢ)):
 *
 *   relevance(r) = 0.7 × max sᵢ + 0.3 × mean of the 3 largest sᵢ (fewer when n < 3; 0 when n = 0)
 *   prior(r)     = 0.05 × log10(1 + stars(r)) / log10(1 + max stars among the starred repos)
 *   score(r)     = relevance(r) + prior(r)
 *
 * The max rewards a repository that matches one topic the user studies closely, the top-3 mean one
 * that matches a theme several cards share; the small popularity prior (at most 0.05) only breaks
 * near ties. Reasons are the titles of the best-matching cards (at most 3, similarity > 0).
 */

/** Weights and limits of the rule above. */
export const STAR_RANKING = {
  maxWeight: 0.7,
  topMeanWeight: 0.3,
  topK: 3,
  priorWeight: 0.05,
  /** Most starred repositories analysed per job (payload and cost bound). */
  maxRepos: 1000,
  /** Description length kept per repository. */
  maxDescriptionChars: 300,
  maxTopics: 20,
} as const;

/** A starred repository as analysed (compact form of the GitHub answer). */
export interface StarredRepoInput {
  fullName: string;
  htmlUrl: string;
  description: string | null;
  language: string | null;
  stars: number;
  topics: string[];
}

/** How one repository matched the user's cards (output of the AI step, one per repository). */
export interface RepoMatch {
  maxSimilarity: number;
  topMean: number;
  /** Best-matching cards, most similar first (at most 3, similarity > 0). */
  cards: { cardId: string; similarity: number }[];
}

/** One recommendation as stored in github_star_recommendations.items. */
export interface StarRecommendationItem extends StarredRepoInput {
  rank: number;
  score: number;
  relevance: number;
  /** Why: the best-matching knowledge cards, most similar first. */
  reasons: { cardId: string; title: string; similarity: number }[];
}

/** The text embedded for a repository: name (owner/name, and name with separators as words), description, topics. */
export function repoText(repo: Pick<StarredRepoInput, 'fullName' | 'description' | 'topics' | 'language'>): string {
  const name = repo.fullName.split('/').pop() ?? repo.fullName;
  const words = name.replace(/[-_.]+/g, ' ');
  const parts = [repo.fullName, words, repo.description ?? '', repo.topics.length ? `topics: ${repo.topics.join(', ')}` : '', repo.language ?? ''];
  return parts.filter((p) => p.trim() !== '').join('\n');
}

/** Cosine similarity of two equal-length vectors; 0 when either is all zeros. */
export function cosineSimilarity(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) throw new Error(`vector lengths differ: ${a.length} vs ${b.length}`);
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i += 1) {
    const x = a[i] as number;
    const y = b[i] as number;
    dot += x * y;
    na += x * x;
    nb += y * y;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}

/** A card embedding, pre-normalised by {@link prepareCards}. */
export interface PreparedCard {
  cardId: string;
  unit: Float32Array;
}

/** L2-normalises card embeddings once, so each repository costs one dot product per card. */
export function prepareCards(cards: { cardId: string; embedding: ArrayLike<number> }[]): PreparedCard[] {
  return cards.map(({ cardId, embedding }) => {
    let n = 0;
    for (let i = 0; i < embedding.length; i += 1) n += (embedding[i] as number) ** 2;
    const norm = Math.sqrt(n);
    const unit = new Float32Array(embedding.length);
    if (norm > 0) for (let i = 0; i < embedding.length; i += 1) unit[i] = (embedding[i] as number) / norm;
    return { cardId, unit };
  });
}

/** Similarities of one repository embedding to every card, reduced to a {@link RepoMatch}. */
export function matchRepo(embedding: ArrayLike<number>, cards: PreparedCard[]): RepoMatch {
  let n = 0;
  for (let i = 0; i < embedding.length; i += 1) n += (embedding[i] as number) ** 2;
  const norm = Math.sqrt(n);
  const sims = cards.map((c) => {
    if (norm === 0) return { cardId: c.cardId, similarity: 0 };
    let dot = 0;
    for (let i = 0; i < c.unit.length; i += 1) dot += (c.unit[i] as number) * (embedding[i] as number);
    return { cardId: c.cardId, similarity: dot / norm };
  });
  sims.sort((x, y) => y.similarity - x.similarity || x.cardId.localeCompare(y.cardId));
  const top = sims.slice(0, STAR_RANKING.topK);
  const maxSimilarity = top[0]?.similarity ?? 0;
  const topMean = top.length ? top.reduce((s, c) => s + c.similarity, 0) / top.length : 0;
  return { maxSimilarity, topMean, cards: top.filter((c) => c.similarity > 0).map((c) => ({ cardId: c.cardId, similarity: round(c.similarity) })) };
}

const round = (x: number) => Math.round(x * 1e6) / 1e6;

/** relevance = 0.7 × max + 0.3 × top-3 mean. */
export function relevanceOf(m: Pick<RepoMatch, 'maxSimilarity' | 'topMean'>): number {
  return STAR_RANKING.maxWeight * m.maxSimilarity + STAR_RANKING.topMeanWeight * m.topMean;
}

/** prior = 0.05 × log10(1 + stars) / log10(1 + maxStars); 0 when no repository has stars. */
export function starPrior(stars: number, maxStars: number): number {
  if (maxStars <= 0 || stars <= 0) return 0;
  return (STAR_RANKING.priorWeight * Math.log10(1 + stars)) / Math.log10(1 + maxStars);
}

/**
 * Ranks repositories by score (ties: more stars, then name) and attaches the reasons' card titles
 * (`titles` maps card id → title; cards missing from it are dropped from the reasons).
 * @throws when `matches` is not one per repository.
 */
export function rankRecommendations(
  repos: StarredRepoInput[],
  matches: RepoMatch[],
  titles: ReadonlyMap<string, string>,
): StarRecommendationItem[] {
  if (repos.length !== matches.length) throw new Error(`${repos.length} repositories but ${matches.length} matches`);
  const maxStars = repos.reduce((m, r) => Math.max(m, r.stars), 0);
  const scored = repos.map((repo, i) => {
    const m = matches[i] as RepoMatch;
    const relevance = relevanceOf(m);
    const reasons = m.cards.flatMap((c) => {
      const title = titles.get(c.cardId);
      return title === undefined ? [] : [{ cardId: c.cardId, title, similarity: c.similarity }];
    });
    return { ...repo, score: round(relevance + starPrior(repo.stars, maxStars)), relevance: round(relevance), reasons };
  });
  scored.sort((a, b) => b.score - a.score || b.stars - a.stars || a.fullName.localeCompare(b.fullName));
  return scored.map((s, i) => ({
    rank: i + 1,
    fullName: s.fullName,
    htmlUrl: s.htmlUrl,
    description: s.description,
    language: s.language,
    stars: s.stars,
    topics: s.topics,
    score: s.score,
    relevance: s.relevance,
    reasons: s.reasons,
  }));
}
