/**
 * (a) POST /scraps accepted per second, 16 clients, against bare `workflow.start(noopWorkflow)` per
 * second by 16 callers (half before, half after), with the CPU per item of both windows. While
 * (a)'s jobs drain, (d)'s cards are seeded (nothing is measured then). On the cluster topology a
 * second window measures the API tier alone: the worker processes are paused (SIGSTOP) while the
 * POSTs run, as when they run on other machines, and their jobs drain after.
 */
import { cpuDiff, cpuReport, cpuSnapshot, sumCpu } from '../cpu';
import { elapsed, say } from '../lifecycle';
import { describeLoad, runLoad } from '../load';
import { drain, fmt, rate, ratio } from '../measure';
import { POST_CLIENTS } from '../options';
import type { BenchSection } from '../section';
import { prepareSimilarCards } from './d-similar-cards';

/** Section (a). */
export const sectionA: BenchSection = {
  letter: 'a',
  needs: 'stack',
  async run(ctx) {
    const { sizes, stack, headers, docs, runId, noop } = ctx;
    const { apiUrl, db } = stack;
    say();
    say(`## (a) POST /scraps accepted/s, ${POST_CLIENTS} clients, ${sizes.posts} requests (distinct contents) ${elapsed()}`);
    await noop.starts(32); // warm-up of the client and the worker
    await runLoad({ url: apiUrl, method: 'POST', paths: ['/scraps'], headers, connections: 4, amount: 16, docs, tag: `bench ${runId} warm-up` });
    await drain(db, 'warm-up');
    const b1 = await noop.starts(sizes.posts);
    say(`baseline, first half: ${b1.n} noopWorkflow starts in ${fmt(b1.seconds, 2)} s = ${rate(b1.n / b1.seconds)}`);
    const cPosts = cpuSnapshot();
    const posts = await runLoad({ url: apiUrl, method: 'POST', paths: ['/scraps'], headers, connections: POST_CLIENTS, amount: sizes.posts, docs, tag: `bench ${runId} a` });
    const postsCpu = cpuDiff(cPosts, cpuSnapshot());
    say(`POST /scraps: ${describeLoad(posts)} = ${rate(posts.rate)} accepted (each makes 2 job workflows, 1 start on the request path)`);
    // (d) runs on the in-process API only: on the cluster topology there is nothing to seed.
    const [drained, seeded] = await Promise.all([drain(db, '(a)'), stack.app ? prepareSimilarCards(ctx).then(() => true) : false]);
    say(`pipeline: the ${2 * posts.ok} jobs of (a) were all terminal ${fmt(drained / 1000, 1)} s after the load ended${seeded ? " (meanwhile (d)'s cards were seeded)" : ''}`);
    const b2 = await noop.starts(sizes.posts);
    say(`baseline, second half: ${b2.n} noopWorkflow starts in ${fmt(b2.seconds, 2)} s = ${rate(b2.n / b2.seconds)}`);
    const startRate = (b1.n + b2.n) / (b1.seconds + b2.seconds);
    if (posts.non2xx + posts.errors + posts.timeouts > 0) say('WARNING: some POST /scraps were not accepted; the rate counts 2xx only');
    say(`ratio API/bare start: ${ratio(posts.rate / startRate)}`);
    // Profile: CPU spent while the POSTs ran (the scraps' background work included) vs while the bare starts ran.
    for (const l of cpuReport({ cpu: postsCpu, items: posts.ok, name: 'POST /scraps window' }, { cpu: sumCpu(b1.cpu, b2.cpu), items: b1.n + b2.n, name: 'bare start window' })) say(l);
    const rows = [
      {
        measure: `(a) POST /scraps accepted/s, ${POST_CLIENTS} clients`,
        subject: rate(posts.rate),
        baseline: `${rate(startRate)} bare workflow.start(noopWorkflow)`,
        ratio: ratio(posts.rate / startRate),
      },
    ];
    if (stack.cluster) {
      const resume = stack.cluster.pauseWorkers();
      const cAlone = cpuSnapshot();
      const alone = await runLoad({ url: apiUrl, method: 'POST', paths: ['/scraps'], headers, connections: POST_CLIENTS, amount: sizes.posts, docs, tag: `bench ${runId} a-alone` });
      const aloneCpu = cpuDiff(cAlone, cpuSnapshot());
      resume();
      say(`POST /scraps, worker processes paused (the API tier alone): ${describeLoad(alone)} = ${rate(alone.rate)} accepted; ratio API/bare start: ${ratio(alone.rate / startRate)}`);
      for (const l of cpuReport({ cpu: aloneCpu, items: alone.ok, name: 'POST /scraps window, workers paused' }, { cpu: sumCpu(b1.cpu, b2.cpu), items: b1.n + b2.n, name: 'bare start window' })) say(l);
      const drainedAlone = await drain(db, '(a), workers paused');
      say(`pipeline: the ${2 * alone.ok} jobs were all terminal ${fmt(drainedAlone / 1000, 1)} s after the workers resumed`);
      rows.push({
        measure: `(a) POST /scraps accepted/s, ${POST_CLIENTS} clients, worker processes paused (API tier alone)`,
        subject: rate(alone.rate),
        baseline: `${rate(startRate)} bare workflow.start(noopWorkflow)`,
        ratio: ratio(alone.rate / startRate),
      });
    }
    return rows;
  },
};
