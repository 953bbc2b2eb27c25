/**
 * startChildServer (src/dev/child-server.ts): a picked port that another listener holds is never
 * probed, the child starts again on another port and serves there; a child that exits at once
 * fails with its name, exit code and last output instead of waiting out the bound; an exit after
 * start is reported.
 */
import { createServer, get, type Server } from 'node:http';
import { ChildServerError, getFreePort, startChildServer, type ChildServer } from '../../../src/dev/child-server';

jest.setTimeout(90_000);

/** A child HTTP server on argv[1] answering `child:<argv[2]>`; on EADDRINUSE it exits (mode exit) or idles (mode stay). */
const CHILD = `
const [port, marker, mode] = process.argv.slice(1);
const srv = require('node:http').createServer((req, res) => res.end('child:' + marker));
srv.on('error', (err) => {
  process.stderr.write('child cannot listen: ' + err.code + '\\n');
  if (mode === 'exit') process.exit(7);
  setInterval(() => {}, 1000);
});
srv.listen(Number(port), '127.0.0.1');
`;

function fetchText(port: number): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = get({ host: '127.0.0.1', port, path: '/', agent: false, timeout: 2_000 }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.once('timeout', () => req.destroy(new Error('timeout')));
    req.once('error', reject);
  });
}

const ready = async ([port]: number[]) => (await fetchText(port!)).status === 200;
const started: ChildServer[] = [];
let foreign: Server | undefined;
let foreignHits = 0;

async function listenForeign(): Promise<number> {
  foreign = createServer((req, res) => {
    foreignHits++;
    res.end('foreign');
  });
  await new Promise<void>((resolve) => foreign!.listen(0, '127.0.0.1', resolve));
  return (foreign.address() as { port: number }).port;
}

afterEach(async () => {
  for (const s of started.splice(0)) await s.stop();
  await new Promise<void>((resolve) => (foreign ? foreign.close(() => resolve()) : resolve()));
  foreign = undefined;
  foreignHits = 0;
});

describe('startChildServer', () => {
  it.each(['exit', 'stay'])('starts again on another port when the picked one is taken (child that %ss)', async (mode) => {
    const taken = await listenForeign();
    const picks: number[] = [];
    const server = await startChildServer({
      name: 'probe child',
      command: process.execPath,
      args: ([port]) => ['-e', CHILD, String(port), 'm1', mode],
      pickPort: async () => {
        const port = picks.length === 0 ? taken : await getFreePort();
        picks.push(port);
        return port;
      },
      ready,
      log: () => undefined,
    });
    started.push(server);
    expect(picks[0]).toBe(taken);
    expect(server.ports[0]).not.toBe(taken);
    expect(await fetchText(server.ports[0]!)).toEqual({ status: 200, body: 'child:m1' });
    expect(foreignHits).toBe(0);
  });

  it('fails naming the port when a fixed port is held by another process', async () => {
    const taken = await listenForeign();
    const err = await startChildServer({ name: 'probe child', command: process.execPath, args: ([port]) => ['-e', CHILD, String(port), 'm2', 'stay'], ports: [taken], ready, log: () => undefined }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ChildServerError);
    expect((err as Error).message).toContain(`probe child: port ${taken} is held by another process`);
    expect(foreignHits).toBe(0);
  });

  it('fails with the exit code and last output when the child exits at once', async () => {
    const err = await startChildServer({
      name: 'doomed child',
      command: process.execPath,
      args: () => ['-e', "process.stderr.write('boom: no config\\n'); process.exit(3)"],
      startTimeoutMs: 600_000, // far beyond the test's own bound: the exit must end the wait
      ready: async () => false,
      log: () => undefined,
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ChildServerError);
    expect((err as ChildServerError).message).toMatch(/^doomed child: exited during start-up with exit code 3/);
    expect((err as ChildServerError).message).toContain('boom: no config');
    expect((err as ChildServerError).exit).toEqual({ code: 3, signal: null });
  });

  it('reports an exit after start with the child name and status', async () => {
    const lines: string[] = [];
    const server = await startChildServer({ name: 'short-lived child', command: process.execPath, args: ([port]) => ['-e', CHILD, String(port), 'm3', 'exit'], ready, log: (l) => lines.push(l) });
    started.push(server);
    process.kill(server.pid, 'SIGKILL');
    expect(await server.exited).toEqual({ code: null, signal: 'SIGKILL' });
    expect(lines.join('\n')).toContain(`short-lived child (pid ${server.pid}, ports ${server.ports[0]}) exited unexpectedly with signal SIGKILL`);
  });
});
