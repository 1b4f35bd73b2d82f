// HTTP throughput of a typical dashboard query next to a bare graphql-yoga answering one trivial field,
// both in their own process on loopback, driven by the same bounded client.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const DASHBOARD_QUERY = `{ resourceProviders(first: 20) { totalCount nodes { uuid name generation parent { name } children { name }
  inventories { resourceClass capacity used free } traits aggregates } } }`;

async function startServer(mode: 'placement' | 'bare', dbFile?: string) {
  const script = fileURLToPath(new URL('./http-server.ts', import.meta.url));
  const child = spawn(process.execPath, ['--import', 'tsx', script, mode, dbFile ?? ''], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout.on('data', (chunk) => {
      const match = String(chunk).match(/PORT (\d+)/);
      if (match) resolve(Number(match[1]));
    });
    child.on('exit', (code) => reject(new Error(`${mode} server exited with ${code}`)));
  });
  return { port, stop: () => child.kill('SIGTERM') };
}

/** Requests per second answered to `concurrency` clients sending `query` for `seconds`. */
async function throughput(port: number, query: string, concurrency: number, seconds: number) {
  const body = JSON.stringify({ query });
  const url = `http://127.0.0.1:${port}/graphql`;
  const send = async () => {
    const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    const json = (await response.json()) as any;
    if (json.errors) throw new Error(JSON.stringify(json.errors));
  };
  for (let i = 0; i < 50; i++) await send(); // warm-up
  let done = 0;
  const deadline = performance.now() + seconds * 1000;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < deadline) {
        await send();
        done++;
      }
    }),
  );
  return done / ((performance.now() - started) / 1000);
}

export async function httpBench(dbFile: string, options = { concurrency: 16, seconds: 5 }) {
  const placement = await startServer('placement', dbFile);
  const bare = await startServer('bare');
  try {
    const dashboard = await throughput(placement.port, DASHBOARD_QUERY, options.concurrency, options.seconds);
    const trivial = await throughput(bare.port, '{ hello }', options.concurrency, options.seconds);
    return { dashboardPerSecond: dashboard, bareYogaPerSecond: trivial, ratio: dashboard / trivial };
  } finally {
    placement.stop();
    bare.stop();
  }
}
