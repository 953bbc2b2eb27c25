/**
 * Local study-question explanation: the sentences of the user's own material that share the most
 * key terms with the question, verbatim. Deterministic and offline; no I/O.
 */
import { type StudyExplanation, type StudyExplanationInput, StudyExplanationSchema, EXPLANATION_MAX } from '../../../domain/study/explanation';
import { cutToLength } from '../../../core/text';
import { isKoreanText, isStatement, textSentences } from '../../extractive/key-terms';
import { BLANK } from '../../extractive/term-matching';
import { contentTokens } from '../../extractive/tokens';

/** Longest sentence an explanation or a card is made of, in UTF-16 code units. */
export const SENTENCE_MAX = 400;

/** The explanation when no material matches; its sentences are no facts to make cards of. */
export const NO_MATERIAL = {
  en: 'None of your material covers this question yet. Check your answer against your textbook.',
  ko: '이 질문을 다루는 자료가 아직 없습니다. 답을 교재와 대조해 보세요.',
} as const;
/** The sentences of {@link NO_MATERIAL}: no facts to make cards of. */
export const NO_MATERIAL_SENTENCES = new Set([...textSentences(NO_MATERIAL.en), ...textSentences(NO_MATERIAL.ko)]);

/** Sentences of an explanation at most. */
const EXPLAIN_SENTENCES = 8;

/**
 * Local study explanation: the sentences of the given context (the user's own material) that share
 * the most key terms with the topic and question (at most 8, each once, verbatim, in their order,
 * as one paragraph per context passage); the user's answer is used the same way only when no
 * context sentence matches (the answer may be wrong, the material is the reference). Without any
 * matching sentence it says so. Deterministic; the question's language decides that message's.
 */
export function explainStudyQuestionLocally(raw: StudyExplanationInput): StudyExplanation {
  const question = raw.question.normalize('NFC').trim();
  const korean = isKoreanText(`${raw.topic ?? ''} ${question}`);
  const wanted = new Set(contentTokens(`${raw.topic ?? ''} ${question}`));
  const pick = (texts: readonly string[]) => {
    const pool: { text: string; score: number; source: number; order: number }[] = [];
    const seen = new Set<string>();
    texts.forEach((text, source) => {
      textSentences(text.normalize('NFC')).forEach((s, order) => {
        const key = s.toLowerCase();
        if (seen.has(key) || s.length > SENTENCE_MAX || s.includes(BLANK) || !isStatement(s)) return;
        seen.add(key);
        const tokens = new Set(contentTokens(s));
        let hits = 0;
        for (const t of tokens) if (wanted.has(t)) hits += 1;
        if (hits > 0) pool.push({ text: s, score: hits / Math.sqrt(tokens.size + 1), source, order });
      });
    });
    return pool
      .sort((a, b) => b.score - a.score || a.source - b.source || a.order - b.order)
      .slice(0, EXPLAIN_SENTENCES)
      .sort((a, b) => a.source - b.source || a.order - b.order);
  };
  let chosen = pick((raw.related ?? []).map((p) => p.text));
  if (chosen.length === 0 && raw.userAnswer?.trim()) chosen = pick([raw.userAnswer]);
  if (chosen.length === 0) {
    return StudyExplanationSchema.parse({ explanation: korean ? NO_MATERIAL.ko : NO_MATERIAL.en });
  }
  const paragraphs: string[] = [];
  let last = -1;
  for (const c of chosen) {
    if (c.source !== last) paragraphs.push(c.text);
    else paragraphs[paragraphs.length - 1] += ` ${c.text}`;
    last = c.source;
  }
  return StudyExplanationSchema.parse({ explanation: cutToLength(paragraphs.join('\n\n'), EXPLANATION_MAX) });
}
