/** What the knowledge-scrap family's route plugins receive: the API's deps and the card search. */
import type { ScrapsConfig } from '../../../config/scraps';
import type { ApiDeps } from '../../deps';
import type { CardSimilarity } from '../../../services/scraps/similarity';

/** {@link ApiDeps} plus SAN-7/SAN-9 similar-card search. */
export interface SanRouteDeps extends ApiDeps<ScrapsConfig> {
  similarity: CardSimilarity;
}
