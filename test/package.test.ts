// The package as an operator gets it: `npm pack` (which builds dist/), the tarball installed into an
// empty folder, `npx placement-gql serve --demo` answering, and a stop, whatever the operator started
// (npx, the bin, npm start), that leaves no process behind. The install reads the npm cache first
// (packages the project's own `npm ci` fetched); better-sqlite3's install script takes the binary this
// project built for this Node as a local prebuild instead of compiling it again (minutes).
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDbFile } from './helpers.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const VERSION = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version;
// npm's own variables (this suite may run under `npm test`) would steer the npm commands run here.
const ENV = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name)));

let app: string;

beforeAll(() => {
  const work = join(tempDbFile('package'), '..');
  execFileSync('npm', ['pack', '--pack-destination', work], { cwd: ROOT, env: ENV, stdio: ['ignore', 'pipe', 'pipe'] });
  const tarball = join(work, `placement-gql-${VERSION}.tgz`);
  // The prebuild better-sqlite3's install script looks for, named as its release assets are (glibc Linux).
  const prebuilds = join(work, 'prebuilds');
  mkdirSync(prebuilds);
  const sqlite = JSON.parse(readFileSync(join(ROOT, 'node_modules/better-sqlite3/package.json'), 'utf8')).version;
  const asset = `better-sqlite3-v${sqlite}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`;
  execFileSync('tar', ['czf', join(prebuilds, asset), '-C', join(ROOT, 'node_modules/better-sqlite3'), 'build/Release/better_sqlite3.node']);
  app = join(work, 'app');
  mkdirSync(app);
  execFileSync('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', tarball], {
    cwd: app,
    env: { ...ENV, npm_config_better_sqlite3_local_prebuilds: prebuilds },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}, 600_000);

/** The processes of a session (a child started with detached: true leads its own), from /proc. */
function sessionProcesses(sid: number): string[] {
  const found: string[] = [];
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[3]) === sid) found.push(readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim());
    } catch {
      // Gone meanwhile.
    }
  }
  return found;
}

interface Started {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

async function start(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = ENV): Promise<Started> {
  const child = spawn(command, args, { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code, signal) => resolve(code ?? (signal ? -1 : null))));
  await new Promise<void>((resolve, reject) => {
    const timer = setInterval(() => output.includes('GraphiQL: ') && (clearInterval(timer), resolve()), 50);
    void exited.then(() => (clearInterval(timer), reject(new Error(`${command} exited: ${output}`))));
  });
  return { child, output: () => output, exited };
}

/** Stops what was started with `signal`, and waits until no process of its session is left (at most 20 s). */
async function stopAll(started: Started, signal: NodeJS.Signals): Promise<string[]> {
  const sid = started.child.pid!;
  started.child.kill(signal);
  await started.exited;
  const deadline = Date.now() + 20_000;
  while (sessionProcesses(sid).length > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  return sessionProcesses(sid);
}

const port = () => 20000 + Math.floor(Math.random() * 20000);
const answers = (at: number) => fetch(`http://127.0.0.1:${at}/health`).then((r) => r.status, () => 'refused');

describe('the packed package, installed into an empty folder', () => {
  const running: Started[] = [];
  afterAll(() => {
    for (const s of running) if (sessionProcesses(s.child.pid!).length) process.kill(-s.child.pid!, 'SIGKILL');
  });

  it('holds the compiled entry and what it reads at run time, and needs no TypeScript to run', () => {
    const installed = join(app, 'node_modules/placement-gql');
    for (const file of ['bin/placement-gql.mjs', 'dist/main.js', 'dist/server/dashboard.page.js', 'dist/server/graphiql/yoga-graphiql.umd.js', 'dist/catalog/standard-traits.json', 'drizzle/meta/_journal.json', 'demo/demo-cloud.json', 'schema.graphql']) expect(existsSync(join(installed, file)), file).toBe(true);
    expect(existsSync(join(installed, 'src')) || existsSync(join(installed, 'test'))).toBe(false);
    // Neither a TypeScript compiler nor GraphiQL's build inputs (its page comes prebuilt in dist/).
    for (const unneeded of ['tsx', 'typescript', 'esbuild', '@graphql-yoga/graphiql', 'react']) expect(existsSync(join(app, 'node_modules', unneeded)), unneeded).toBe(false);
    expect(execFileSync('npx', ['placement-gql', '--version'], { cwd: app, env: ENV, encoding: 'utf8' })).toBe(`placement-gql ${VERSION}\n`);
  });

  it('npx placement-gql serve --demo answers /health and GraphQL, as one process and its workers; SIGTERM to npx stops them all', async () => {
    const at = port();
    const server = await start('npx', ['placement-gql', 'serve', '--demo', '--workers', '2', '--port', String(at), '--db', join(app, 'placement.db')], app);
    running.push(server);
    expect(await answers(at)).toBe(200);
    const answer = await fetch(`http://127.0.0.1:${at}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: '{ resourceProviders { totalCount } }' }) });
    expect(await answer.json()).toEqual({ data: { resourceProviders: { totalCount: 33 } } });
    for (const asset of ['/dashboard/dashboard.js', '/graphiql-assets/yoga-graphiql.umd.js', '/graphiql-assets/graphql.worker.js']) expect((await fetch(`http://127.0.0.1:${at}${asset}`)).status, asset).toBe(200);
    // npm's exec and its shell, then the server: the primary and its two workers, all plain node on dist/.
    const servers = sessionProcesses(server.child.pid!).filter((args) => args.includes('placement-gql serve'));
    expect(servers.filter((args) => /node .*placement-gql(\.mjs)? serve/.test(args)), servers.join('\n')).toHaveLength(3);
    expect(servers.join('\n')).not.toMatch(/tsx|esbuild/);
    expect(await stopAll(server, 'SIGTERM')).toEqual([]);
    expect(await answers(at)).toBe('refused');
    expect(server.output()).toContain('placement-gql worker');
  });

  it('SIGINT to the bin itself stops the server and its workers', async () => {
    const at = port();
    const server = await start(join(app, 'node_modules/.bin/placement-gql'), ['serve', '--workers', '2', '--port', String(at), '--db', join(app, 'placement.db')], app);
    running.push(server);
    expect(sessionProcesses(server.child.pid!)).toHaveLength(3);
    expect(await stopAll(server, 'SIGINT')).toEqual([]);
    expect(await server.exited).toBe(0);
    expect(await answers(at)).toBe('refused');
  });
});

describe('npm start in the project', () => {
  it('serves the demo cloud from dist/, and SIGTERM to npm stops everything', async () => {
    const at = port();
    const server = await start('npm', ['start'], ROOT, { ...ENV, PORT: String(at), PLACEMENT_DB: tempDbFile() });
    try {
      expect(server.output()).toContain('Loaded the demo cloud');
      expect(await answers(at)).toBe(200);
      expect(sessionProcesses(server.child.pid!).join('\n')).toContain('dist/main.js serve --demo');
      expect(await stopAll(server, 'SIGTERM')).toEqual([]);
      expect(await answers(at)).toBe('refused');
    } finally {
      if (sessionProcesses(server.child.pid!).length) process.kill(-server.child.pid!, 'SIGKILL');
    }
  });
});
