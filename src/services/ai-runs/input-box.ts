/**
 * AR-6/AR-7 sealing of a run's raw input for the outbox (ai_run_pending_inputs): AES-256-GCM under
 * the AI_RUN_INPUT_KEYS key ring (key ids for rotation, src/crypto/token-box.ts), the run id bound
 * as additional data, so a sealed input opens only for its own run. The clear text is never stored.
 */
import type { AiRunsConfig as Config } from '../../config/ai-runs';
import { createTokenBox, parseKeyRing, type SealedToken, type TokenBox } from '../../crypto/token-box';

/** Seals and opens run inputs. */
export interface InputBox {
  seal(runId: string, text: string): SealedToken;
  /** @throws TokenBoxError when the key is retired or the ciphertext does not verify. */
  open(runId: string, sealed: SealedToken): string;
}

/** The input box of `config.aiRuns` (validated at config load). */
export function inputBoxFromConfig(config: Config): InputBox {
  const spec = config.aiRuns.inputKeys;
  if (!spec) throw new Error('AI_RUN_INPUT_KEYS is not configured');
  const box: TokenBox = createTokenBox(parseKeyRing(spec, config.aiRuns.inputActiveKeyId));
  return {
    seal: (runId, text) => box.seal(text, `ai-run-input:${runId}`),
    open: (runId, sealed) => box.open(sealed, `ai-run-input:${runId}`),
  };
}
