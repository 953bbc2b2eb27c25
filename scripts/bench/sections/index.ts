/**
 * Every bench section, in the order a run takes them: the measurements of the in-process stack
 * first ((c) after (b), whose jobs it reads; (d) after (a), which seeds its cards), then (f) and (j),
 * which need no server, and (h) last, as it starts processes of its own.
 */
import type { BenchSection } from '../section';
import { sectionA } from './a-scrap-posts';
import { sectionB } from './b-scrap-latency';
import { sectionC } from './c-job-reads';
import { sectionD } from './d-similar-cards';
import { sectionE } from './e-til-commits';
import { sectionF } from './f-local-ai';
import { sectionG } from './g-completion-polling';
import { sectionH } from './h-memory';
import { sectionI } from './i-ai-runs';
import { sectionJ } from './j-embeddings';
import { sectionK } from './k-study';
import { sectionL } from './l-portal-links';
import { sectionM } from './m-mixed-burst';
import { sectionQ } from './q-fairness';

/** The sections in run order. */
export const SECTIONS: readonly BenchSection[] = [sectionA, sectionB, sectionC, sectionD, sectionE, sectionG, sectionI, sectionK, sectionL, sectionM, sectionQ, sectionF, sectionJ, sectionH];
