/**
 * ST-5 evidence relevance: a card backed only by boilerplate that recurs across the user's
 * documents (a README's sponsorship paragraph), or by a retrieved passage under the score floor, is
 * dropped `evidence_off_topic` and counted; topical evidence passes; boilerplate sentences are left
 * out of retrieved context.
 */
import { guardMemoCards } from '../../../src/domain/study/guards';
import { boilerplateIndex, evidenceRelevance, NO_BOILERPLATE, RELEVANCE_FLOOR, retrievalScore, withoutBoilerplate } from '../../../src/domain/study/relevance';
import type { MemoCard } from '../../../src/domain/study/cards';

const tidelift = (pkg: string) =>
  `The maintainers of ${pkg} and thousands of other packages are working with Tidelift to deliver commercial support and maintenance for the open source dependencies you use to build your applications.`;
const readme = (pkg: string, topic: string) => `# ${pkg}\n\n${topic}\n\n## ${pkg} for enterprise\n\nAvailable as part of the Tidelift Subscription. ${tidelift(pkg)}`;
const CORPUS = [
  readme('domutils', 'Utilities for working with htmlparser2 DOM trees: find nodes, read attributes, walk siblings.'),
  readme('entities', 'Encode and decode HTML and XML entities quickly, with strict and legacy modes.'),
  readme('css-what', 'A CSS selector parser that turns a selector string into an array of tokens.'),
  readme('nth-check', 'Parses and compiles CSS nth-checks to highly optimized functions.'),
  '# @fastify/accept-negotiator\n\nA negotiator for the accept headers. It picks the best supported encoding or media type for a request.',
];

const explanation = `${tidelift('domutils')} The accept-negotiator package picks the best supported encoding for a request.`;
const cloze = (text: string, quote: string, ref = 'explanation'): MemoCard => ({ kind: 'cloze', clozeText: text, evidence: [{ ref, quote }] });
const boilerplateCard = cloze(
  tidelift('domutils').replace('Tidelift', '{{c1::Tidelift}}'),
  tidelift('domutils'),
);
const topicalCard = cloze('The accept-negotiator package picks the best supported {{c1::encoding}} for a request.', 'The accept-negotiator package picks the best supported encoding for a request.');

describe('boilerplate statistics', () => {
  const index = boilerplateIndex(CORPUS);

  test('a sentence recurring across documents (its package name aside) is boilerplate; a topical one is not', () => {
    expect(index.share(tidelift('some-new-package'))).toBeGreaterThan(0.8);
    expect(index.share('The accept-negotiator package picks the best supported encoding for a request.')).toBe(0);
    expect(boilerplateIndex(CORPUS.slice(0, 2)).share(tidelift('x'))).toBe(0); // two documents are not "many"
  });

  test('boilerplate sentences are left out of retrieved context, the rest kept as written', () => {
    const stripped = withoutBoilerplate(CORPUS[0]!, index);
    expect(stripped).not.toContain('thousands of other packages');
    expect(stripped).toContain('Utilities for working with htmlparser2 DOM trees');
    expect(stripped).toContain('# domutils');
  });
});

describe('the evidence_off_topic guard', () => {
  const passages = [
    { ref: 'explanation', text: explanation },
    { ref: 'question', text: 'What is @fastify/accept-negotiator and what is it for?' },
    { ref: 'knowledge_card:far', text: 'Sourdough bread needs a starter and a long proof.' },
  ];
  const relevance = { passageScores: new Map([['knowledge_card:far', retrievalScore(0.9, 0.5)]]), boilerplate: boilerplateIndex(CORPUS) };

  test('drops a card backed only by boilerplate, keeps the topical one, and counts the drop by reason', () => {
    const out = guardMemoCards({ cards: [boilerplateCard, topicalCard], passages, relevance });
    expect(out.kept.map((k) => k.index)).toEqual([1]);
    expect(out.dropped).toEqual([{ index: 0, reason: 'evidence_off_topic', detail: expect.stringContaining('under') }]);
    expect(out.droppedByReason.evidence_off_topic).toBe(1);
  });

  test('a retrieved passage under the score floor backs no card; one at the related distance does', () => {
    const far = cloze('Sourdough bread needs a {{c1::starter}} and a long proof.', 'Sourdough bread needs a starter and a long proof.', 'knowledge_card:far');
    expect(retrievalScore(0.9, 0.5)).toBeLessThan(RELEVANCE_FLOOR);
    expect(guardMemoCards({ cards: [far], passages, relevance }).droppedByReason.evidence_off_topic).toBe(1);
    const near = { ...relevance, passageScores: new Map([['knowledge_card:far', retrievalScore(0.5, 0.5)]]) };
    expect(guardMemoCards({ cards: [far], passages, relevance: near }).kept).toHaveLength(1);
  });

  test('without a relevance context nothing is checked; relevance is the passage score scored down by boilerplate', () => {
    expect(guardMemoCards({ cards: [boilerplateCard], passages }).kept).toHaveLength(1);
    expect(evidenceRelevance({ ref: 'explanation', quote: 'anything' }, { passageScores: new Map(), boilerplate: NO_BOILERPLATE })).toBe(1);
    expect(evidenceRelevance(boilerplateCard.evidence[0]!, relevance)).toBeLessThan(RELEVANCE_FLOOR);
  });
});
