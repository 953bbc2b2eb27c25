/**
 * The machinery of the settings: each section (the core's, each family's) declares its environment
 * variables as a zod shape and maps the parsed values to its part of the config; `loadSections`
 * parses them all at once, so every bad variable is named in one error (fail fast at start-up).
 */
import { z } from 'zod';

/** `true` | `false` | `1` | `0`. */
export const bool = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');

/** NODE_ENV, which every section may read (development defaults, production requirements). */
export type NodeEnv = 'development' | 'test' | 'production';

/** Raised when the environment does not parse; lists every offending variable. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/** Throws a {@link ConfigError} naming `variable`. */
export function invalid(variable: string, message: string): never {
  throw new ConfigError(`invalid configuration:\n  ${variable}: ${message}`);
}

/**
 * One section of the config: its environment variables (names → zod schemas), how their parsed
 * values become its part of the config `S`, and the checks across them.
 */
export interface ConfigSection<S extends object> {
  /** Environment variable name → zod schema (applied to the variable's string value). */
  readonly env: z.ZodRawShape;
  /** Maps the parsed variables to the section's part of the config. */
  read(e: Record<string, unknown>, nodeEnv: NodeEnv): S;
  /** Cross-variable checks. @throws ConfigError */
  check?(section: S): void;
}

/** Declares a section with `env`'s parsed types in `read` and `check`. */
export function configSection<E extends z.ZodRawShape, S extends object>(
  env: E,
  read: (e: z.infer<z.ZodObject<E>>, nodeEnv: NodeEnv) => S,
  check?: (section: S) => void,
): ConfigSection<S> {
  return { env, read: read as ConfigSection<S>['read'], ...(check ? { check } : {}) };
}

/** The part of the config a section adds. */
export type SectionOf<T> = T extends ConfigSection<infer S> ? S : never;

/**
 * Every variable name of `sections`.
 * @throws Error when two sections declare the same variable.
 */
export function envNames(sections: readonly ConfigSection<object>[]): string[] {
  const names = sections.flatMap((s) => Object.keys(s.env));
  const twice = names.find((n, i) => names.indexOf(n) !== i);
  if (twice) throw new Error(`environment variable ${twice} is declared by two config sections`);
  return names;
}

/**
 * Parses `env` (empty strings count as unset) with every section and merges their parts, then runs
 * each section's checks in order.
 * @throws ConfigError naming each invalid variable.
 */
export function loadSections<S extends object>(env: NodeJS.ProcessEnv, sections: readonly ConfigSection<object>[]): S {
  envNames(sections);
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const schema = z.object(Object.assign({}, ...sections.map((s) => s.env)) as z.ZodRawShape);
  const parsed = schema.safeParse(cleaned);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`invalid configuration:\n  ${lines.join('\n  ')}`);
  }
  const e = parsed.data as Record<string, unknown>;
  const nodeEnv = (e.NODE_ENV ?? 'development') as NodeEnv;
  const parts = sections.map((s) => s.read(e, nodeEnv));
  sections.forEach((s, i) => s.check?.(parts[i]!));
  return Object.assign({}, ...parts) as S;
}
