/**
 * A family's part of `npm run demo`: one module per family, `scripts/demo/families/<family>.ts`
 * (the family's manifest name), exporting `part`. The runner starts the stack, then runs every
 * family's part in the manifests' order and adds their jobs up into the last line.
 */
import type { PrismaClient } from '@prisma/client';
import type { Config } from '../../src/families';
import type { ApiClient } from '../lib/api-client';

/** Where the API will listen (chosen before the service's config is built). */
export interface ApiAddress {
  host: string;
  port: number;
}

/** What a part may use while the stack starts. */
export interface PrepareContext {
  say: (line: string) => void;
  /** Registers the stop of something the part started (run in reverse order at the end, also on error). */
  onStop: (what: string, stop: () => Promise<unknown>) => void;
}

/** The demo user: the one whose documents become scraps (created by the runner). */
export interface DemoUser {
  token: string;
  /** `authorization: Bearer …`. */
  auth: Record<string, string>;
  /** The typed API client (scripts/lib/api-client.ts) as the demo user. */
  api: ApiClient;
}

/** The demo's command-line options the parts read. */
export interface DemoOptions {
  /** `--files` globs (the demo user's documents instead of README files). */
  files: string[];
  /** `--limit`: most documents submitted. */
  limit: number;
}

/** What the parts hand on to later parts (a part reads what an earlier one left, if it ran). */
export interface DemoShared {
  /** The demo user's documents, submitted as scraps: file name and scrap id. */
  documents?: { file: string; scrapId: string }[];
}

/** The demo's webhook receiver (webhooks.ts), for a part that registers an endpoint of another scope. */
export interface DemoWebhookRegistry {
  /**
   * Registers the receiver as the company endpoint of `companyId` through `api`, whose user must be
   * an OWNER of the company; its deliveries are counted and one of them verified in the demo's
   * webhook summary. Returns the endpoint's id. @throws ApiCallError when the API refuses it.
   */
  registerCompany(api: ApiClient, companyId: string): Promise<string>;
}

/** What a part gets when it runs. */
export interface PartContext {
  apiUrl: string;
  db: PrismaClient;
  config: Config;
  uiUrl: string;
  user: DemoUser;
  options: DemoOptions;
  shared: DemoShared;
  webhooks: DemoWebhookRegistry;
  say: (line: string) => void;
}

/** What a part reports. */
export interface PartResult {
  /** Jobs of the part that completed (for `jobs: <completed>/<total> completed`). */
  completed: number;
  total: number;
  /** Lines printed at the end of the demo, after the Temporal Web UI line. */
  closing?: string[];
  /** With --keep: lines on where the part's servers are, and commands a second user pastes. */
  keep?: { where: string[]; commands: string[] };
}

/** One family's part; `S` is what its `prepare` started (e.g. an emulator), handed to the others. */
export interface DemoPart<S = undefined> {
  /** Starts what the part needs before the service (e.g. an emulator) and prints a line on it. */
  prepare?: (ctx: PrepareContext) => Promise<S>;
  /** The family's settings in the service's environment (demo markers, short retry delays, emulator URLs). */
  env?: (api: ApiAddress, state: S) => Record<string, string>;
  /** Runs once the service's config is built, before the workers start (e.g. creates a bucket). */
  beforeWorkers?: (config: Config, state: S) => Promise<void>;
  /** The part itself, against the running API. */
  run: (ctx: PartContext, state: S) => Promise<PartResult>;
}

/** Declares a part (the identity, for type inference of `S`). */
export function definePart<S = undefined>(part: DemoPart<S>): DemoPart<S> {
  return part;
}
