/**
 * ST-5 memo-card sources: a polymorphic (source_kind, source_id) read as one shape, and the
 * retrieval of related material. A source kind is an adapter here (study questions; knowledge cards
 * of the scrap family), so nothing else is hard-wired to one table.
 */
import { similarityThresholdFor } from '../../ai/embedding-models';
import { isBlankText } from '../../core/blank';
import type { DbClient } from '../../db/client';
import { cosineDistance, decodeEmbedding } from '../../db/vectors';
import type { StudySourceKind } from '../../domain/study/contracts';
import { BOILERPLATE_SAMPLE, boilerplateIndex, RELEVANCE_FLOOR, retrievalScore, withoutBoilerplate, type BoilerplateIndex } from '../../domain/study/relevance';

/** A source as an extraction reads it. `version` is what job rows compare with (ST-3). */
export interface StudySource {
  kind: StudySourceKind;
  id: string;
  userId: string;
  topicId: string | null;
  topicName: string | null;
  /** The prompt side: a question, or a knowledge card's title. */
  question: string;
  userAnswer: string | null;
  /** The text cards are extracted from: the AI (or hand-written) explanation, or the card's summary and content. */
  explanation: string | null;
  /** null while the source is not ready (a question without an explanation). */
  version: Date | null;
  /** 1536 float32 of the source, when stored. */
  embedding: Uint8Array | null;
}

/** Loads a source of `userId`; null when it does not exist (or is someone else's). */
export async function loadSource(db: DbClient, kind: StudySourceKind, id: string): Promise<StudySource | null> {
  if (kind === 'study_question') {
    const q = await db.studyQuestion.findUnique({ where: { id }, include: { topic: { select: { name: true } } } });
    if (!q) return null;
    return {
      kind, id, userId: q.userId, topicId: q.topicId, topicName: q.topic.name, question: q.question, userAnswer: q.userAnswer,
      explanation: q.aiExplanation, version: q.aiExplanationGeneratedAt, embedding: q.embedding,
    };
  }
  const k = await db.knowledgeCard.findUnique({ where: { id }, include: { scrap: { select: { content: true, refinedContent: true } } } });
  if (!k) return null;
  const content = k.scrap.refinedContent ?? k.scrap.content;
  return {
    kind, id, userId: k.userId, topicId: null, topicName: null, question: k.title, userAnswer: null,
    explanation: `${k.summary}\n\n${content}`, version: k.createdAt, embedding: k.embedding,
  };
}

/**
 * ST-4 `no_ready_explanation`: why `source` cannot be extracted at `version` (it vanished, has no
 * explanation, or has a newer one than the job's), or undefined when it can.
 */
export function notReadyReason(source: Pick<StudySource, 'explanation' | 'version'> | null, version: Date): string | undefined {
  if (!source) return 'the source no longer exists';
  if (isBlankText(source.explanation ?? '') || !source.version) return 'the source has no explanation';
  if (source.version.getTime() !== version.getTime()) {
    return `the source's explanation is now version ${source.version.toISOString()}, not ${version.toISOString()}`;
  }
  return undefined;
}

/** One retrieved passage: cited by evidence as `ref` (`<kind>:<id>`). */
export interface RelatedPassage {
  ref: string;
  kind: StudySourceKind;
  id: string;
  text: string;
  distance: number;
  /** Retrieval score, 0 … 1 ({@link retrievalScore}); never under {@link RELEVANCE_FLOOR}. */
  score: number;
}

/** What {@link retrieveRelated} found: the passages, the boilerplate statistics of the documents read, and how many passages the floor left out. */
export interface Retrieved {
  passages: RelatedPassage[];
  boilerplate: BoilerplateIndex;
  belowFloor: number;
}

/** Stated limits of {@link retrieveRelated}. */
export interface RetrievalLimits {
  /** Passages returned (nearest first). */
  limit: number;
  /** Rows scanned per kind (the user's most recent), so the cost is bounded. */
  scanLimit: number;
  /** Longest passage text, in code points (cut at a code-point boundary). */
  maxChars?: number;
  /** Kinds of material searched (default both). */
  kinds?: readonly StudySourceKind[];
  /** The embedding model's "related" cosine distance (default 0.5), the unit of the retrieval score. */
  relatedDistance?: number;
}

/** The "related" cosine distance of embedding `model` (its calibrated threshold, else 0.5): the unit of ST-5 retrieval scores. */
export function relatedDistanceOf(model: string | undefined): number {
  return similarityThresholdFor({ threshold: 0.5 }, model ?? '');
}

/** Longest document text read for the boilerplate statistics, in code points. */
const SAMPLE_CHARS = 30_000;

/** Cuts `s` to at most `max` code points, never inside a surrogate pair. */
function cutCodePoints(s: string, max: number): string {
  const cps = Array.from(s);
  return cps.length <= max ? s : cps.slice(0, max).join('');
}

/**
 * ST-5 retrieval over the user's OWN material only: the `limits.limit` nearest (cosine distance of
 * the 1536-d embeddings) of the user's other explained questions and knowledge cards, out of the
 * user's `limits.scanLimit` most recent rows of each kind, the source itself excluded, and only
 * those whose retrieval score reaches {@link RELEVANCE_FLOOR} (the rest are counted in
 * `belowFloor`). Boilerplate — sentences recurring across the {@link BOILERPLATE_SAMPLE} nearest
 * documents (knowledge cards: the user's source material) — is left out of the passages, and its statistics are returned for the card guards.
 * Two reads: ids and embeddings of the candidates, scored in process (PostgreSQL 15 here has no
 * pgvector; float32 bytea, as the scrap family's fallback), then the texts of the nearest (a
 * question with its explanation; a knowledge card's title, summary and scrap content), each
 * passage cut to `maxChars` code points.
 */
export async function retrieveRelated(db: DbClient, source: Pick<StudySource, 'kind' | 'id' | 'userId'>, query: ArrayLike<number>, limits: RetrievalLimits): Promise<Retrieved> {
  if (limits.limit <= 0) return { passages: [], boilerplate: boilerplateIndex([]), belowFloor: 0 };
  const maxChars = limits.maxChars ?? 1_200;
  const relatedDistance = limits.relatedDistance ?? 0.5;
  const kinds = new Set(limits.kinds ?? ['study_question', 'knowledge_card']);
  const [questions, cards] = await Promise.all([
    !kinds.has('study_question') ? [] : db.studyQuestion.findMany({
      where: { userId: source.userId, aiExplanation: { not: null }, embedding: { not: null }, ...(source.kind === 'study_question' ? { id: { not: source.id } } : {}) },
      orderBy: { createdAt: 'desc' },
      take: limits.scanLimit,
      select: { id: true, embedding: true },
    }),
    !kinds.has('knowledge_card') ? [] : db.knowledgeCard.findMany({
      where: { userId: source.userId, ...(source.kind === 'knowledge_card' ? { id: { not: source.id } } : {}) },
      orderBy: { createdAt: 'desc' },
      take: limits.scanLimit,
      select: { id: true, embedding: true },
    }),
  ]);
  const scored: { kind: StudySourceKind; id: string; distance: number }[] = [];
  for (const q of questions) if (q.embedding) scored.push({ kind: 'study_question', id: q.id, distance: cosineDistance(query, decodeEmbedding(q.embedding)) });
  for (const c of cards) scored.push({ kind: 'knowledge_card', id: c.id, distance: cosineDistance(query, decodeEmbedding(c.embedding)) });
  const nearest = scored
    .filter((p) => Number.isFinite(p.distance))
    .sort((a, b) => a.distance - b.distance || `${a.kind}:${a.id}`.localeCompare(`${b.kind}:${b.id}`))
    .slice(0, Math.max(limits.limit, BOILERPLATE_SAMPLE));
  const qIds = nearest.filter((p) => p.kind === 'study_question').map((p) => p.id);
  const kIds = nearest.filter((p) => p.kind === 'knowledge_card').map((p) => p.id);
  const [qTexts, kTexts] = await Promise.all([
    qIds.length ? db.studyQuestion.findMany({ where: { id: { in: qIds } }, select: { id: true, question: true, aiExplanation: true } }) : [],
    kIds.length ? db.knowledgeCard.findMany({ where: { id: { in: kIds } }, select: { id: true, title: true, summary: true, scrap: { select: { content: true, refinedContent: true } } } }) : [],
  ]);
  const text = new Map<string, string>();
  for (const q of qTexts) text.set(`study_question:${q.id}`, `${q.question}\n${q.aiExplanation ?? ''}`);
  for (const k of kTexts) text.set(`knowledge_card:${k.id}`, `${k.title}\n${k.summary}\n${k.scrap.refinedContent ?? k.scrap.content}`);
  // Source documents only: explanations of other questions copy sentences of them and would count them twice.
  const documents = [...text].filter(([ref]) => ref.startsWith('knowledge_card:')).map(([, t]) => cutCodePoints(t, SAMPLE_CHARS));
  const boilerplate = boilerplateIndex(documents);
  const top = nearest.slice(0, limits.limit).map((p) => ({ ...p, score: retrievalScore(p.distance, relatedDistance) }));
  const passages = top.filter((p) => p.score >= RELEVANCE_FLOOR).flatMap((p) => {
    const ref = `${p.kind}:${p.id}`;
    const t = text.get(ref);
    return t === undefined ? [] : [{ ref, kind: p.kind, id: p.id, text: cutCodePoints(withoutBoilerplate(t, boilerplate), maxChars), distance: p.distance, score: p.score }];
  });
  return { passages, boilerplate, belowFloor: top.filter((p) => p.score < RELEVANCE_FLOOR).length };
}

/**
 * The (kind, id) an evidence `ref` names: the source's own passages (`explanation`, `question`,
 * `user_answer`) are the source; `<kind>:<id>` is a retrieved passage. Unknown refs fall back to the source.
 */
export function evidenceOrigin(ref: string, source: Pick<StudySource, 'kind' | 'id'>): { kind: StudySourceKind; id: string } {
  return retrievedOrigin(ref) ?? { kind: source.kind, id: source.id };
}

/** The (kind, id) of a retrieved passage's `ref` (`<kind>:<id>`); null for the source's own passages and unknown refs ({@link evidenceOrigin}). */
export function retrievedOrigin(ref: string): { kind: StudySourceKind; id: string } | null {
  const m = /^(study_question|knowledge_card):([0-9a-f-]{36})$/i.exec(ref);
  return m ? { kind: m[1] as StudySourceKind, id: m[2]!.toLowerCase() } : null;
}
