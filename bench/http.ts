// Throughput over HTTP: `placement-gql serve --workers N` on a real socket, C concurrent clients (each on
// its own keep-alive connection) sending a mix of candidate queries and dashboard pages, for a few seconds.
import { HttpClient, startOurs } from './services.js';

export const DASHBOARD_QUERY = `{ resourceProviders(first: 20) { totalCount nodes { uuid name generation parent { name } children { name }
  inventories { resourceClass capacity used free } traits aggregates } } }`;

/** Requests per second answered to `clients` clients, each sending the bodies in turn for `seconds`. */
async function throughput(url: string, bodies: string[], clients: number, seconds: number) {
  let done = 0;
  const deadline = performance.now() + seconds * 1000;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async (_, c) => {
      const client = new HttpClient(url);
      for (let i = c; performance.now() < deadline; i++) {
        const r = await client.post('/graphql', bodies[i % bodies.length]);
        if (r.status !== 200) throw new Error(`status ${r.status}: ${r.body.toString('utf8').slice(0, 300)}`);
        done++;
      }
      client.close();
    }),
  );
  return done / ((performance.now() - started) / 1000);
}

/** A table of requests/s for 1 and 2 workers and 1, 2 and 4 clients. */
export async function throughputTable(dbFile: string, candidateBodies: string[], options = { seconds: 5, workers: [1, 2], clients: [1, 2, 4] }) {
  const dashboard = JSON.stringify({ query: DASHBOARD_QUERY });
  const bodies = candidateBodies.flatMap((b) => [b, dashboard]);
  const figures = new Map<number, number[]>();
  for (const workers of options.workers) {
    const server = await startOurs(dbFile, { workers });
    try {
      // Warm every worker up: a round of the mix from several connections.
      await throughput(server.url, bodies, 4, 2);
      const row: number[] = [];
      for (const clients of options.clients) row.push(await throughput(server.url, bodies, clients, options.seconds));
      figures.set(workers, row);
    } finally {
      await server.stop();
    }
  }
  const lines = [`| workers | ${options.clients.map((c) => `${c} client${c > 1 ? 's' : ''}`).join(' | ')} |`, `|---:|${options.clients.map(() => '---:').join('|')}|`];
  for (const [workers, row] of figures) lines.push(`| ${workers} | ${row.map((x) => x.toFixed(0)).join(' | ')} |`);
  return lines.join('\n');
}
