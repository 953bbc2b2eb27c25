/**
 * CPU accounting for the bench (where the time of one scrap goes, (a) and (b)). Reads Linux
 * `/proc`: the CPU time (user + system, ms) of every process descending from this one, grouped by
 * command name (`temporal` = the dev server, `postgres` = PostgreSQL 15 and its backends, reaped
 * backends included through their parent's `cutime`/`cstime`), and of this process's own threads,
 * grouped as the JS main thread (API, workers' JS, load generator's callers), `tokio` (the Temporal
 * SDK's Rust core and its gRPC), and the other threads by name (worker threads of the local AI
 * runtime and of the load generator, libuv's pool, V8's helpers). Elsewhere than on Linux every
 * snapshot is empty and the report says so. Measurement only; no service code uses it.
 */
import { readdirSync, readFileSync } from 'node:fs';

/**
 * CPU time per group, ms. In a snapshot a thread's entry is `<group>\t<thread id>`, so that a
 * thread that ended between two snapshots drops out of their difference instead of counting
 * negative; {@link cpuDiff} sums the entries up by group.
 */
export type CpuSnapshot = Map<string, number>;

const TICK_MS = 10; // USER_HZ is 100 on Linux x86-64 and arm64

/** `/proc/<…>/stat` → [comm, ppid, utime + stime, cutime + cstime] in ms, or undefined. */
function readStat(path: string): [string, number, number, number] | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return undefined; // the process or thread ended meanwhile
  }
  const open = text.indexOf('(');
  const close = text.lastIndexOf(')');
  const comm = text.slice(open + 1, close);
  const f = text.slice(close + 2).split(' '); // f[0] = state (field 3), so field n is f[n - 3]
  const n = (i: number) => Number(f[i - 3]);
  return [comm, n(4), (n(14) + n(15)) * TICK_MS, (n(16) + n(17)) * TICK_MS];
}

let labeler: ((pid: number) => string | undefined) | undefined;

/**
 * Names descendant processes by role instead of by command (the cluster topology: `api-1`,
 * `worker-ai-1`, `temporal-2` …): a process is counted under the label of its nearest labelled
 * ancestor (itself included), else as `process <command>`. `undefined` turns labelling off.
 */
export function setProcessLabeler(fn: ((pid: number) => string | undefined) | undefined): void {
  labeler = fn;
}

/** One snapshot: descendant processes by command, this process's threads by group. */
export function cpuSnapshot(): CpuSnapshot {
  const out: CpuSnapshot = new Map();
  const add = (k: string, v: number) => out.set(k, (out.get(k) ?? 0) + v);
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((p) => /^\d+$/.test(p));
  } catch {
    return out;
  }
  const procs = new Map<number, [string, number, number, number]>();
  for (const p of pids) {
    const s = readStat(`/proc/${p}/stat`);
    if (s) procs.set(Number(p), s);
  }
  const self = process.pid;
  const isDescendant = (pid: number) => {
    for (let cur = procs.get(pid)?.[1], hops = 0; cur !== undefined && cur > 1 && hops < 32; cur = procs.get(cur)?.[1], hops++) {
      if (cur === self) return true;
    }
    return false;
  };
  const labelOf = (pid: number) => {
    for (let cur: number | undefined = pid, hops = 0; labeler && cur !== undefined && cur > 1 && cur !== self && hops < 32; cur = procs.get(cur)?.[1], hops++) {
      const l = labeler(cur);
      if (l) return l;
    }
    return undefined;
  };
  for (const [pid, [comm, , own, reaped]] of procs) {
    if (pid !== self && isDescendant(pid)) add(labelOf(pid) ?? `process ${comm}`, own + reaped);
  }
  let tids: string[] = [];
  try {
    tids = readdirSync(`/proc/${self}/task`);
  } catch {
    /* not Linux */
  }
  for (const t of tids) {
    const s = readStat(`/proc/${self}/task/${t}/stat`);
    if (!s) continue;
    const [comm, , own] = s;
    const group = Number(t) === self ? 'bench node: JS main thread' : /^tokio/.test(comm) ? 'bench node: tokio (Temporal SDK core)' : `bench node: thread ${comm}`;
    add(`${group}\t${t}`, own);
  }
  return out;
}

/**
 * `after − before` per group: entries that appeared count from 0; threads gone by `after` are
 * left out (their last interval is lost, a small undercount).
 */
export function cpuDiff(before: CpuSnapshot, after: CpuSnapshot): CpuSnapshot {
  const out: CpuSnapshot = new Map();
  for (const [k, v] of after) {
    const group = k.split('\t')[0]!;
    out.set(group, (out.get(group) ?? 0) + Math.max(0, v - (before.get(k) ?? 0)));
  }
  return out;
}

/** The sum of some differences from {@link cpuDiff}, per group (intervals measured in pieces). */
export function sumCpu(...diffs: CpuSnapshot[]): CpuSnapshot {
  const out: CpuSnapshot = new Map();
  for (const d of diffs) for (const [k, v] of d) out.set(k, (out.get(k) ?? 0) + v);
  return out;
}

/**
 * Lines comparing two measured intervals per item: for each group, ms of CPU per subject item and
 * per baseline item, largest first; groups under 0.05 ms per item on both sides are left out.
 */
export function cpuReport(subject: { cpu: CpuSnapshot; items: number; name: string }, baseline: { cpu: CpuSnapshot; items: number; name: string }): string[] {
  if (subject.cpu.size === 0) return ['CPU per item: not available (no /proc)'];
  const keys = [...new Set([...subject.cpu.keys(), ...baseline.cpu.keys()])];
  const per = (s: CpuSnapshot, items: number, k: string) => (s.get(k) ?? 0) / Math.max(1, items);
  const rows = keys
    .map((k) => ({ k, s: per(subject.cpu, subject.items, k), b: per(baseline.cpu, baseline.items, k) }))
    .filter((r) => r.s >= 0.05 || r.b >= 0.05)
    .sort((x, y) => y.s - x.s);
  const total = (s: CpuSnapshot, items: number) => [...s.values()].reduce((a, v) => a + v, 0) / Math.max(1, items);
  const st = total(subject.cpu, subject.items);
  const bt = total(baseline.cpu, baseline.items);
  return [
    `CPU per item (ms; ${subject.name} n=${subject.items} / ${baseline.name} n=${baseline.items}): total ${st.toFixed(1)} / ${bt.toFixed(1)} (${(st / Math.max(bt, 1e-9)).toFixed(2)}×)`,
    ...rows.map((r) => `  ${r.k}: ${r.s.toFixed(1)} / ${r.b.toFixed(1)}`),
  ];
}
