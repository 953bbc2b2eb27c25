/** The clean-up of what a script started: steps run in reverse order, each bounded, errors reported. */

/** A list of clean-up steps. */
export interface Stops {
  /** Registers a step (`what` names it in messages). */
  add(what: string, stop: () => Promise<unknown>): void;
  /** Runs every step registered so far, last first, once (later calls get the same promise). */
  stopAll(): Promise<void>;
}

/**
 * Clean-up steps of the script `name`: a step that takes over `boundMs` is left behind (and said
 * so on stderr) so that one hung server cannot keep the others up; with `debug`, each step is
 * named on stderr as it runs.
 */
export function createStops(name: string, opts: { boundMs?: number; debug?: boolean } = {}): Stops {
  const boundMs = opts.boundMs ?? 20_000;
  const steps: { what: string; stop: () => Promise<unknown> }[] = [];
  let stopping: Promise<void> | undefined;
  return {
    add: (what, stop) => void steps.push({ what, stop }),
    stopAll: () =>
      (stopping ??= (async () => {
        while (steps.length > 0) {
          const { what, stop } = steps.pop() as (typeof steps)[number];
          if (opts.debug) process.stderr.write(`${name}: stopping ${what}\n`);
          let timer: NodeJS.Timeout | undefined;
          const bound = new Promise<void>((resolve) => {
            timer = setTimeout(() => {
              process.stderr.write(`${name}: stopping ${what} took over ${boundMs / 1000} s, moving on\n`);
              resolve();
            }, boundMs);
          });
          await Promise.race([stop().catch((err: unknown) => process.stderr.write(`${name}: stopping ${what}: ${String(err)}\n`)), bound]);
          clearTimeout(timer);
        }
      })()),
  };
}
