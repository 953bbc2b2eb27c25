/**
 * Local TIL generation (SAN-9): extractive, from the cards' own sentences and key terms. No I/O.
 */
import { count, localEmbedding } from '../../extractive/embedding';
import { KEYWORDS_PER_TEXT, type PreparedText, STATEMENT_MAX, statementSentences, TITLE_MAX } from '../../extractive/key-terms';
import { clip, FENCE_RE } from '../../extractive/markdown';
import { AiProviderError } from '../../types';
import { type SourceCard, type TilResult, TilResultSchema } from '../answers';
import { prepareCards } from './quizzes';

export const TIL_KEYWORDS = 3;
export const TIL_BULLETS_MIN = 2;
export const TIL_BULLETS_MAX = 4;
/**
 * SAN-9 size bounds of a local TIL, in UTF-16 code units (the schema allows 100,000): the whole
 * markdown, one card's section, and the `## Sources` list. A day whose sections do not all fit gets
 * sections for its first cards (card order) and lists every card under Sources.
 */
export const TIL_LIMITS = { markdownMax: 60_000, sectionMax: 1_500, sourcesMax: 20_000 } as const;

/** The top `n` keywords over all cards, one per card in turn (card order), as written in the cards. */
export function tilKeywords(prepared: PreparedText[], n: number): string[] {
  const picked: string[] = [];
  const shown: string[] = [];
  for (let rank = 0; picked.length < n && rank < KEYWORDS_PER_TEXT; rank++) {
    for (const p of prepared) {
      const k = p.keywords[rank];
      if (!k || picked.includes(k.term) || picked.length >= n) continue;
      picked.push(k.term);
      shown.push(p.surfaces.get(k.term) ?? k.term);
    }
  }
  return shown;
}

/** Key sentences of a card for its TIL section: the best 2–4 not already in the summary, in text order. */
export function keySentences(p: PreparedText): string[] {
  const ranked = statementSentences(p);
  const all = ranked.length > 0 ? ranked : p.sentences;
  const summary = p.source.summary.replace(/\s+/g, ' ');
  const fresh = all.filter((s) => !summary.includes(s.text));
  const want = Math.min(TIL_BULLETS_MAX, Math.max(TIL_BULLETS_MIN, Math.ceil(p.sentences.length / 3)));
  const chosen = [...fresh.slice(0, want)];
  for (const s of all) if (chosen.length < Math.min(want, TIL_BULLETS_MIN) && !chosen.includes(s)) chosen.push(s);
  return chosen.sort((a, b) => a.index - b.index).map((s) => clip(s.text, STATEMENT_MAX));
}

/** `a, b and c` (English) or `a, b, c` (Korean). */
export function listJoin(items: string[], korean: boolean): string {
  if (korean || items.length <= 1) return items.join(', ');
  return `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}

/**
 * Pure SAN-9 TIL of the local provider (and the test emulator). Title
 * `TIL <targetDate>: <first card title>` for one card, else `TIL <targetDate>: <top keywords>` (≤ 120
 * characters). Markdown: `# <title>`, an overview paragraph, one `## <card title>` section per card
 * (its summary and 2–4 key sentences as bullets), then `## Sources` listing the card titles.
 * Bounded for a day of any size ({@link TIL_LIMITS}): sections in card order while they fit (the
 * overview then names how many are summarised), each section capped, Sources cut with
 * `… and N more cards`; linear in the cards' total length.
 * Embedding: {@link localEmbedding} of the markdown, so the TIL is near its cards and their topic.
 * @throws AiProviderError BAD_REQUEST when no card has a title, summary or content.
 */
export function generateTilLocally(input: { targetDate: string; cards: readonly SourceCard[] }): TilResult {
  const cards = input.cards.filter((c) => c.title.trim() || c.summary.trim() || c.content.trim());
  if (cards.length === 0) throw new AiProviderError('BAD_REQUEST', 'no source cards for the TIL', false);
  const prepared = prepareCards(cards);
  const korean = prepared.filter((p) => p.korean).length * 2 > prepared.length;
  const keywords = tilKeywords(prepared, TIL_KEYWORDS);
  const topic = prepared.length === 1 ? (prepared[0]?.title ?? '') : keywords.join(', ');
  const title = clip(`TIL ${input.targetDate}: ${topic}`.replace(/\s+/g, ' '), TITLE_MAX);

  const cardsWith = new Map<string, number>();
  for (const p of prepared) for (const t of new Set(p.keywords.map((k) => k.term))) count(cardsWith, t);
  const shared = [...cardsWith.keys()].filter((t) => (cardsWith.get(t) ?? 0) >= 2).slice(0, 3);
  const n = prepared.length;
  const overview = korean
    ? `${input.targetDate}에 저장한 카드 ${n}개의 주제: ${listJoin(tilKeywords(prepared, 5), true)}.` +
      (shared.length > 0 ? ` 공통 키워드: ${shared.join(', ')}.` : '')
    : `${n} card${n === 1 ? '' : 's'} saved on ${input.targetDate}, about ${listJoin(tilKeywords(prepared, 5), false)}.` +
      (shared.length > 0 ? ` Common thread: ${listJoin(shared, false)}.` : '');

  const sources = sourcesList(prepared, korean);
  const head = `# ${title}`;
  // Room for the sections: the budget less the header, the overview (and its overflow note) and Sources.
  let room = TIL_LIMITS.markdownMax - head.length - overview.length - sources.length - OVERFLOW_NOTE_MAX - 6;
  const sections: string[] = [];
  for (const p of prepared) {
    const section = tilSection(p);
    if (section.length + 2 > room) break;
    sections.push(section);
    room -= section.length + 2;
  }
  const note = sections.length < n ? ` ${overflowNote(sections.length, n, korean)}` : '';
  const tilMarkdown = [head, overview + note, ...sections, sources].join('\n\n');
  return TilResultSchema.parse({ title, tilMarkdown, embedding: localEmbedding(tilMarkdown) });
}

/** A line of prose that cannot open a code fence (a leading ``` or ~~~ is escaped). */
export function proseLine(s: string): string {
  return FENCE_RE.test(s) ? s.replace(/^(\s*)([`~])/, '$1\\$2') : s;
}

/**
 * One card's TIL section, at most {@link TIL_LIMITS}.sectionMax: `## title`, the summary, 2–4 key
 * sentences as bullets; bullets are dropped from the end, then the summary clipped, until it fits.
 */
export function tilSection(p: PreparedText): string {
  const heading = `## ${clip(p.title, TITLE_MAX)}`;
  let summary = proseLine(p.source.summary.trim().replace(/\s+/g, ' '));
  const bullets = keySentences(p).map((s) => `- ${s}`);
  const render = () => [heading, summary, bullets.join('\n')].filter(Boolean).join('\n\n');
  let section = render();
  while (section.length > TIL_LIMITS.sectionMax && bullets.length > 0) {
    bullets.pop();
    section = render();
  }
  if (section.length > TIL_LIMITS.sectionMax) {
    summary = clip(summary, Math.max(1, TIL_LIMITS.sectionMax - heading.length - 2));
    section = render();
  }
  return section;
}

/** `## Sources`: every card's title, one per line, at most {@link TIL_LIMITS}.sourcesMax (then `… and N more`). */
export function sourcesList(prepared: readonly PreparedText[], korean: boolean): string {
  const lines: string[] = [];
  let used = 0;
  for (const [i, p] of prepared.entries()) {
    const line = `- ${clip(p.title, TITLE_MAX)}`;
    if (used + line.length + 1 > TIL_LIMITS.sourcesMax - MORE_LINE_MAX) {
      const more = prepared.length - i;
      lines.push(korean ? `- … 외 카드 ${more}개` : `- … and ${more} more card${more === 1 ? '' : 's'}`);
      break;
    }
    lines.push(line);
    used += line.length + 1;
  }
  return `## Sources\n\n${lines.join('\n')}`;
}

/** Upper bounds of the generated overflow texts, reserved in the budget. */
export const OVERFLOW_NOTE_MAX = 120;
export const MORE_LINE_MAX = 40;

/** The overview's note when only the first `shown` of `n` cards have a section. */
export function overflowNote(shown: number, n: number, korean: boolean): string {
  return korean
    ? `아래에는 처음 ${shown}개 카드를 정리했고, 나머지 ${n - shown}개는 Sources에 제목만 있습니다.`
    : `The first ${shown} are summarised below; the other ${n - shown} are listed by title under Sources.`;
}
