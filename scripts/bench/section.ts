/** What a bench section is and what the runner hands it. */
import type { ApiClient } from '../lib/api-client';
import type { BenchStack } from './stack';
import type { NoopBaseline } from './noop';
import type { SectionLetter, Sizes } from './options';
import type { Row } from './summary';

/** What every section gets: the sizes and the run. */
export interface RunContext {
  sizes: Sizes;
  quick: boolean;
  runId: string;
}

/** What a section that measures the service gets: the running stack, the bench user, the baseline. */
export interface StackContext extends RunContext {
  stack: BenchStack;
  /** The bench user's request headers (bearer token, JSON body). */
  headers: Record<string, string>;
  /** The typed API client (scripts/lib/api-client.ts) as the bench user: setup and per-job calls go through it. */
  api: ApiClient;
  /** Scrap contents: README texts of installed packages, 40 of them. */
  docs: string[];
  noop: NoopBaseline;
  /** What one section leaves for a later one (the run goes on without it when that section did not run or failed). */
  shared: {
    /** Job IDs of (b)'s scraps, read by (c). */
    jobIds: string[];
  };
}

/** One section: its letter, what it needs, and how it runs; it returns its summary rows. */
export type BenchSection =
  | { letter: SectionLetter; needs: 'nothing'; run: (ctx: RunContext) => Promise<Row[]> }
  | {
      letter: SectionLetter;
      needs: 'stack';
      /** The stack must start the portal emulator, the object store and the portal worker. */
      portal?: boolean;
      run: (ctx: StackContext) => Promise<Row[]>;
    };
