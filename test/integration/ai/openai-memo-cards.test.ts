/**
 * ST-5: the study port over the `openai` provider, over HTTP against the local OpenAI-compatible emulator:
 * strict json_schema requests (evidence refs limited to the request's passages, the card limit),
 * zod validation at the boundary (an invalid answer is MALFORMED_OUTPUT, retryable: the parse_fail
 * class), timeouts as TIMEOUT (the llm_timeout class), blank input refused before any request.
 */
import { loadConfig } from '../../../src/families';
import { AiProviderError, createOpenAiProvider, type AiErrorCode } from '../../../src/ai';
import { createStudyAi } from '../../../src/ai/study';
import { MEMO_CARDS_SCHEMA_NAME, STUDY_EXPLANATION_SCHEMA_NAME } from '../../../src/ai/study/chat-prompts';
import { explainStudyQuestionLocally } from '../../../src/ai/study/extractive/explanation';
import { extractMemoCardsLocally } from '../../../src/ai/study/extractive/memo-cards';
import type { MemoCardExtractionInput, StudySourcePassage } from '../../../src/domain/study/cards';
import { startOpenAiEmulator, type OpenAiEmulator } from '../../support/openai-emulator';

const EXPLANATION = `A partial index is an index built over a subset of a table's rows. PostgreSQL stores table and index data in pages of 8 kB. Autovacuum starts a VACUUM when 20% of a table has changed.`;
const INPUT: MemoCardExtractionInput = {
  topic: 'PostgreSQL indexes',
  question: 'What is a partial index?',
  userAnswer: 'An index on some rows.',
  explanation: EXPLANATION,
  related: [{ ref: 'study_question:7', text: 'A B-tree index keeps its keys sorted.' }],
  maxCards: 5,
};

let emu: OpenAiEmulator;
beforeAll(async () => {
  emu = await startOpenAiEmulator();
});
afterAll(async () => emu.close());
beforeEach(() => {
  emu.reset();
  emu.respondTo(MEMO_CARDS_SCHEMA_NAME, null);
  emu.respondTo(STUDY_EXPLANATION_SCHEMA_NAME, null);
});

const studyAi = (timeoutMs = 10_000) =>
  createStudyAi(createOpenAiProvider(loadConfig({ AI_PROVIDER: 'openai', OPENAI_BASE_URL: emu.url, OPENAI_API_KEY: emu.apiKey, AI_REQUEST_TIMEOUT_MS: String(timeoutMs) }).ai));

/** The passages the provider sent between <material> tags. */
function material(prompt: string): StudySourcePassage[] {
  const json = prompt.slice(prompt.indexOf('<material>') + '<material>'.length, prompt.indexOf('</material>'));
  return JSON.parse(json) as StudySourcePassage[];
}

async function expectAiError(p: Promise<unknown>, code: AiErrorCode, retryable: boolean): Promise<AiProviderError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AiProviderError);
  expect({ code: (err as AiProviderError).code, retryable: (err as AiProviderError).retryable }).toEqual({ code, retryable });
  return err as AiProviderError;
}

describe('extractMemoCards', () => {
  test('a strict schema over the request’s passages; the validated cards come back', async () => {
    emu.respondTo(MEMO_CARDS_SCHEMA_NAME, (prompt) => {
      const passages = material(prompt);
      const explanation = passages.find((p) => p.ref === 'explanation')?.text ?? '';
      return extractMemoCardsLocally({ question: 'q', explanation, maxCards: 5 });
    });
    const batch = await studyAi().extractMemoCards(INPUT);
    expect(batch).toEqual(extractMemoCardsLocally({ question: 'q', explanation: EXPLANATION, maxCards: 5 }));
    expect(batch.cards.length).toBeGreaterThan(0);

    const body = emu.log[0]?.body as { response_format: { json_schema: { name: string; strict: boolean; schema: unknown } }; messages: { content: string }[] };
    expect(body.response_format.json_schema).toMatchObject({ name: 'memo_cards', strict: true });
    const cards = (body.response_format.json_schema.schema as { properties: { cards: { maxItems: number; items: { anyOf: { properties: { evidence: { items: { properties: { ref: { enum: string[] } } } } } }[] } } } }).properties.cards;
    expect(cards.maxItems).toBe(5);
    expect(cards.items.anyOf[0]?.properties.evidence.items.properties.ref.enum).toEqual(['explanation', 'question', 'user_answer', 'study_question:7']);
    expect(material(body.messages[1]?.content ?? '').map((p) => p.ref)).toEqual(['explanation', 'question', 'user_answer', 'study_question:7']);
  });

  test('the emulator answers both study schemas like the local provider, by default', async () => {
    const batch = await studyAi().extractMemoCards(INPUT);
    expect(batch).toEqual(extractMemoCardsLocally(INPUT));
    const q = { topic: 'PostgreSQL indexes', question: 'What is a partial index?', related: [{ ref: 'r', text: EXPLANATION }] };
    expect(await studyAi().explainStudyQuestion(q)).toEqual(explainStudyQuestionLocally(q));
  });

  test('an answer that fails the card schema is MALFORMED_OUTPUT (retryable)', async () => {
    const bad = [
      { cards: [{ kind: 'cloze', clozeText: 'no deletion at all', evidence: [{ ref: 'explanation', quote: 'x' }] }] },
      { cards: [{ kind: 'essay', cue: 'q', answer: 'a', evidence: [{ ref: 'explanation', quote: 'x' }] }] },
      { cards: [{ kind: 'basic', cue: 'q', answer: 'a', evidence: [] }] },
      { memo: [] },
    ];
    for (const answer of bad) {
      emu.respondTo(MEMO_CARDS_SCHEMA_NAME, () => answer);
      const e = await expectAiError(studyAi().extractMemoCards(INPUT), 'MALFORMED_OUTPUT', true);
      expect(e.message).toMatch(/memo_cards.*schema mismatch/);
    }
    emu.respondTo(MEMO_CARDS_SCHEMA_NAME, null);
    emu.setMode('malformed-json');
    await expectAiError(studyAi().extractMemoCards(INPUT), 'MALFORMED_OUTPUT', true);
  });

  test('more cards than asked for are cut to the limit; none is a valid answer', async () => {
    const card = (i: number) => ({ kind: 'basic', cue: `Question ${i}?`, answer: 'a', evidence: [{ ref: 'explanation', quote: 'x' }] });
    emu.respondTo(MEMO_CARDS_SCHEMA_NAME, () => ({ cards: [1, 2, 3, 4, 5, 6, 7].map(card) }));
    expect((await studyAi().extractMemoCards(INPUT)).cards.map((c) => (c.kind === 'basic' ? c.cue : ''))).toEqual(['Question 1?', 'Question 2?', 'Question 3?', 'Question 4?', 'Question 5?']);
    emu.respondTo(MEMO_CARDS_SCHEMA_NAME, () => ({ cards: [] }));
    expect(await studyAi().extractMemoCards(INPUT)).toEqual({ cards: [] });
  });

  test('a provider that does not answer in time is TIMEOUT (retryable); a blank explanation is refused unsent', async () => {
    emu.failNext(1, 'hang');
    await expectAiError(studyAi(300).extractMemoCards(INPUT), 'TIMEOUT', true);
    const before = emu.requests['/v1/chat/completions'] ?? 0;
    await expectAiError(studyAi().extractMemoCards({ ...INPUT, explanation: '  ' }), 'BAD_REQUEST', false);
    expect(emu.requests['/v1/chat/completions'] ?? 0).toBe(before);
  });
});

describe('explainStudyQuestion', () => {
  test('returns the validated explanation; the answer and context are sent as material', async () => {
    emu.respondTo(STUDY_EXPLANATION_SCHEMA_NAME, (prompt) => ({ explanation: `  Explained: ${material(prompt).map((p) => p.ref).join(', ')}  ` }));
    const out = await studyAi().explainStudyQuestion({ topic: 'Indexes', question: 'What is a partial index?', userAnswer: 'Some rows.', related: INPUT.related });
    expect(out).toEqual({ explanation: 'Explained: user_answer, study_question:7' });
    const body = emu.log[0]?.body as { response_format: { json_schema: { name: string } }; messages: { content: string }[] };
    expect(body.response_format.json_schema.name).toBe('study_explanation');
    expect(body.messages[1]?.content).toMatch(/^Topic: Indexes\nQuestion: What is a partial index\?/);
  });

  test('a blank or missing explanation is MALFORMED_OUTPUT; a blank question is refused unsent', async () => {
    emu.respondTo(STUDY_EXPLANATION_SCHEMA_NAME, () => ({ explanation: '   ' }));
    await expectAiError(studyAi().explainStudyQuestion({ question: 'Why?' }), 'MALFORMED_OUTPUT', true);
    emu.respondTo(STUDY_EXPLANATION_SCHEMA_NAME, () => ({ text: 'wrong key' }));
    await expectAiError(studyAi().explainStudyQuestion({ question: 'Why?' }), 'MALFORMED_OUTPUT', true);
    await expectAiError(studyAi().explainStudyQuestion({ question: '' }), 'BAD_REQUEST', false);
  });
});
