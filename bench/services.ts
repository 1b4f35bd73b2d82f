// The two services as clients meet them, for the bench: `placement-gql serve` in its own process on a
// real socket, and the real Placement 8.0.0 (Debian's placement-api, through bench/placement.py), plus one
// keep-alive HTTP client that times both the same way: from sending the request to the last byte of the body.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createNetServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

/** Servers started by the bench: stopped when the bench exits, even when it fails half-way. */
const started = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of started) if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
});

export interface Service {
  url: string;
  stop(): Promise<void>;
}

function stopChild(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill(signal);
  });
}

function waitForLine(child: ChildProcess, pattern: RegExp, what: string): Promise<RegExpMatchArray> {
  return new Promise((resolve, reject) => {
    let seen = '';
    child.stdout!.on('data', (chunk) => {
      seen += String(chunk);
      const match = seen.match(pattern);
      if (match) resolve(match);
    });
    child.once('exit', (code) => reject(new Error(`${what} exited with ${code} before it was ready: ${seen.slice(-500)}`)));
  });
}

/** `placement-gql serve --quiet` on DB, as a user starts it (same Node flags as `npm start`). */
export async function startOurs(dbFile: string, options: { workers?: number } = {}): Promise<Service> {
  const port = await freePort();
  const args = ['--max-semi-space-size=32', '--import', 'tsx', join(ROOT, 'src/main.ts'), 'serve', '--db', dbFile, '--port', String(port), '--quiet'];
  if (options.workers !== undefined) args.push('--workers', String(options.workers));
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  started.add(child);
  await waitForLine(child, /GraphiQL: (http:\/\/\S+)\/graphql/, 'placement-gql serve');
  const url = `http://127.0.0.1:${port}`;
  // Ready means answering, in every worker.
  const client = new HttpClient(url);
  for (let i = 0; i < 20; i++) await client.get('/health');
  client.close();
  return { url, stop: () => stopChild(child) };
}

/** Whether Debian's Placement can be run here (apt-get install python3-placement). */
export function placementInstalled(): boolean {
  return existsSync('/usr/bin/placement-api') && spawnSync('/usr/bin/python3', ['-c', 'import placement'], { stdio: 'ignore' }).status === 0;
}

/** The real Placement over HTTP on DIR, restored from SNAPSHOT or loaded from SCENARIO through its API (then kept in SNAPSHOT); on the database at dbUrl when given (SNAPSHOT's rows copied into it). */
export async function startPlacement(dir: string, scenarioFile: string, snapshot: string, dbUrl?: string): Promise<Service> {
  const child = spawn('/usr/bin/python3', [join(ROOT, 'bench/placement.py'), '--dir', dir, '--snapshot', snapshot, '--load', scenarioFile, ...(dbUrl ? ['--db-url', dbUrl] : [])], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  started.add(child);
  const [, url] = await waitForLine(child, /ready (http:\/\/\S+)/, 'placement.py');
  return {
    url,
    stop: async () => {
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.stdin!.end();
      await Promise.race([exited, new Promise((r) => setTimeout(r, 15_000))]);
      await stopChild(child);
    },
  };
}

/**
 * Two timed requests, first and second in turn by run (a first one after a pause finds a cold CPU):
 * run i sends `a` first when even, `b` first when odd.
 */
export const inTurn = (i: number, a: () => Promise<unknown>, b: () => Promise<unknown>): Promise<unknown> => (i % 2 === 0 ? a().then(b) : b().then(a));

export interface Timed {
  ms: number;
  status: number;
  body: Buffer;
}

/** One client on one keep-alive connection (when the server keeps it; Placement's wsgiref closes each). */
export class HttpClient {
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 1 });
  private readonly host: string;
  private readonly port: number;

  constructor(readonly base: string) {
    const u = new URL(base);
    this.host = u.hostname;
    this.port = Number(u.port);
  }

  send(method: string, path: string, headers: Record<string, string>, body?: string, retried = false): Promise<Timed> {
    return new Promise((resolve, reject) => {
      const started = performance.now();
      const req = httpRequest({ host: this.host, port: this.port, method, path, headers, agent: this.agent }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ ms: performance.now() - started, status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
        res.on('error', reject);
      });
      req.on('error', (error: NodeJS.ErrnoException) => {
        // An idle keep-alive connection the server closed just as this request went out: send it again, once.
        if (req.reusedSocket && error.code === 'ECONNRESET' && !retried) resolve(this.send(method, path, headers, body, true));
        else reject(error);
      });
      req.end(body);
    });
  }

  get(path: string, headers: Record<string, string> = {}) {
    return this.send('GET', path, headers);
  }

  post(path: string, body: string) {
    return this.send('POST', path, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) }, body);
  }

  close() {
    this.agent.destroy();
  }
}
