// A graceful stop under load, and a SIGKILL during writes, on the real `serve` process over HTTP.
// The stop: every request the server read is answered (0 lost), a subscription stream gets a last event
// before it closes, acknowledged writes are in the database, the WAL is checkpointed, the exit code is 0.
// The kill: the database passes integrity_check, no mutation is half applied, and every acknowledged
// write is there.
import { spawn } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { existsSync, statSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../src/db/client.js';
import { exportSnapshot, importSnapshot } from '../src/modules/snapshot/snapshot.service.js';
import { demoCloud, tempDbFile } from './helpers.js';

async function serve(dbFile: string, workers: number) {
  const port = String(20000 + Math.floor(Math.random() * 20000));
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', 'serve', '--db', dbFile, '--port', port, '--quiet', '--workers', String(workers)], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (c) => (output += c));
  child.stderr!.on('data', (c) => (output += c));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  await new Promise<void>((resolve, reject) => {
    const timer = setInterval(() => output.includes('GraphiQL: ') && (clearInterval(timer), resolve()), 20);
    void exited.then(() => (clearInterval(timer), reject(new Error(`serve exited: ${output}`))));
  });
  return { child, exited, url: `http://127.0.0.1:${port}/graphql`, output: () => output };
}

function demoDb() {
  const dbFile = tempDbFile();
  const db = openDatabase(dbFile);
  importSnapshot(db, demoCloud());
  db.close();
  return dbFile;
}

const post = (url: string, query: string, variables?: object) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query, variables }) }).then(async (r) => ({ status: r.status, body: (await r.json()) as any }));

/** Clients sending requests back to back until the server is gone; what each got. */
function load(clients: number, request: (client: number, n: number) => Promise<{ status: number; body: any }>) {
  const answers: { status: number; body: any }[] = [];
  const failures: string[] = [];
  const done = Promise.all(
    Array.from({ length: clients }, async (_, client) => {
      for (let n = 0; ; n++) {
        try {
          answers.push(await request(client, n));
        } catch (error) {
          failures.push(String((error as any)?.cause?.code ?? (error as any)?.cause?.message ?? error));
          return;
        }
      }
    }),
  );
  return { answers, failures, done };
}

describe('graceful stop (SIGTERM) under load', () => {
  it.each([1, 2])('answers every request it read, ends the subscription stream with a last event, keeps every acknowledged write, exits 0 (%i worker(s))', async (workers) => {
    const dbFile = demoDb();
    const server = await serve(dbFile, workers);

    // A dashboard subscribed to changes.
    const stream = await fetch(server.url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'text/event-stream' }, body: JSON.stringify({ query: 'subscription { providerChanged { providerUuid kind } }' }) });
    expect(stream.status).toBe(200);
    const streamText = (async () => {
      let text = '';
      const decoder = new TextDecoder();
      for await (const chunk of stream.body as any) text += decoder.decode(chunk, { stream: true });
      return text;
    })();

    // 12 clients: readers of a dashboard page and writers creating providers, each name once.
    const running = load(12, (client, n) =>
      client % 2
        ? post(server.url, '{ resourceProviders(first: 50) { totalCount nodes { name inventories { resourceClass used capacity } traits } } }')
        : post(server.url, 'mutation($name: String!) { createResourceProvider(input: {name: $name}) { __typename ... on ResourceProviderPayload { provider { name } } } }', { name: `stop-${client}-${n}` }),
    );
    while (running.answers.length < 150) await new Promise((r) => setTimeout(r, 20));
    // A slow client: its request's headers and half its body arrive before the signal, the rest after.
    const body = JSON.stringify({ query: '{ resourceProviders(first: 5) { totalCount nodes { name } } }' });
    const slow = new Promise<{ status: number; body: any }>((resolve, reject) => {
      const request = httpRequest(server.url, { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (response) => {
        let text = '';
        response.on('data', (c) => (text += c));
        response.on('end', () => resolve({ status: response.statusCode!, body: JSON.parse(text) }));
      });
      request.on('error', reject);
      request.write(body.slice(0, 20));
      setTimeout(() => server.child.kill('SIGTERM'), 500);
      setTimeout(() => request.end(body.slice(20)), 1_200);
    });
    const { code } = await server.exited;
    await running.done;
    const text = await streamText;
    const created = () => running.answers.flatMap((a) => (a.body.data?.createResourceProvider?.provider ? [a.body.data.createResourceProvider.provider.name] : []));

    expect(code, server.output()).toBe(0);
    // Each serving process says what its stop did (one line, or one per worker).
    const summaries = [...server.output().matchAll(/stopped: (\d+) request\(s\) in flight at the signal; (\d+) of (\d+) request\(s\) read were answered, (\d+) cut/g)];
    expect(summaries.length, server.output()).toBe(workers);
    const [inFlight, answered, received, cut] = [1, 2, 3, 4].map((i) => summaries.reduce((sum, m) => sum + Number(m[i]), 0));
    console.log(`graceful stop under load, ${workers} worker(s): ${received} requests read, ${answered} answered, ${cut} cut, ${inFlight} in flight at the signal; ${running.failures.length} never read (${[...new Set(running.failures)].join(', ')})`);
    expect(cut).toBe(0);
    expect(answered).toBe(received);
    // Every request the server read reached its client whole: the load's answers and the stream.
    expect(running.answers.length + 2).toBe(received);
    // At least the stream and the slow request were in flight; the slow one got its whole answer.
    expect(inFlight, server.output()).toBeGreaterThanOrEqual(2);
    const slowAnswer = await slow;
    expect(slowAnswer.status).toBe(200);
    expect(slowAnswer.body.data.resourceProviders.nodes).toHaveLength(5);
    expect(slowAnswer.body.data.resourceProviders.totalCount).toBeGreaterThan(33);
    for (const answer of running.answers) {
      expect(answer.status).toBe(200);
      expect(answer.body.errors).toBeUndefined();
    }
    // The requests that failed were never read (the counts above match): refused at connecting once the
    // port closed, reset from the listening socket's queue as it closed (the kernel's, or under --workers
    // the primary's), or sent on a kept-alive connection as it was closed after a second idle (a client
    // slowed down by a loaded machine).
    for (const failure of running.failures) expect(failure, server.output()).toMatch(/^(ECONNREFUSED|ECONNRESET|UND_ERR_SOCKET)$/);

    // The stream heard the writes, then a last event saying why it ends, then the end.
    expect(text).toContain('"kind":"PROVIDER"');
    const last = text.trim().split('\n\n').slice(-2);
    expect(last[0]).toContain('SERVER_STOPPING');
    expect(last[1]).toMatch(/^event: complete/);

    // Acknowledged writes are in the database; the WAL was checkpointed into it.
    expect(created().length).toBeGreaterThan(10);
    expect(!existsSync(`${dbFile}-wal`) || statSync(`${dbFile}-wal`).size === 0).toBe(true);
    const db = openDatabase(dbFile);
    expect(db.sqlite.pragma('integrity_check', { simple: true })).toBe('ok');
    const names = new Set((db.sqlite.prepare("SELECT name FROM resource_providers WHERE name LIKE 'stop-%'").all() as { name: string }[]).map((r) => r.name));
    for (const name of created()) expect(names.has(name), name).toBe(true);
    db.close();
  }, 60_000);
});

describe('SIGKILL during writes', () => {
  it('leaves a sound database: no mutation half applied, every acknowledged one there', async () => {
    const dbFile = demoDb();
    // One process: the kill hits the very process that writes.
    const server = await serve(dbFile, 1);
    // Each writer owns one provider and sets its three inventories to its n-th value (n rising), then its two
    // traits to n's parity: a half-applied mutation would show different numbers, or one trait of each.
    const writers = 6;
    const providers: string[] = [];
    const generations = new Map<number, number>();
    const traitsOf = (n: number) => (n % 2 ? ['CUSTOM_ODD_A', 'CUSTOM_ODD_B'] : ['CUSTOM_EVEN_A', 'CUSTOM_EVEN_B']);
    for (const name of [...traitsOf(1), ...traitsOf(2)]) await post(server.url, 'mutation($name: String!) { createTrait(input: {name: $name}) { __typename } }', { name });
    for (let w = 0; w < writers; w++) {
      const answer = await post(server.url, 'mutation($name: String!) { createResourceProvider(input: {name: $name}) { ... on ResourceProviderPayload { provider { uuid generation } } } }', { name: `kill-${w}` });
      providers.push(answer.body.data.createResourceProvider.provider.uuid);
      generations.set(w, answer.body.data.createResourceProvider.provider.generation);
    }
    const acknowledged = new Map<number, number>();
    const running = load(writers, async (w, n) => {
      const value = n + 1;
      const inventories = await post(
        server.url,
        `mutation($uuid: UUID!, $generation: Int!, $n: Int!, $mb: Int!) { setInventories(input: {providerUuid: $uuid, generation: $generation, inventories: [
            {resourceClass: "VCPU", total: $n}, {resourceClass: "MEMORY_MB", total: $mb}, {resourceClass: "DISK_GB", total: $n}]}) {
          __typename ... on ResourceProviderPayload { provider { generation } } } }`,
        { uuid: providers[w], generation: generations.get(w), n: value, mb: value * 1024 },
      );
      expect(inventories.body.data.setInventories.__typename).toBe('ResourceProviderPayload');
      generations.set(w, inventories.body.data.setInventories.provider.generation);
      const traits = await post(
        server.url,
        `mutation($uuid: UUID!, $generation: Int!, $traits: [String!]!) { setProviderTraits(input: {providerUuid: $uuid, generation: $generation, traits: $traits}) {
          __typename ... on ResourceProviderPayload { provider { generation } } } }`,
        { uuid: providers[w], generation: generations.get(w), traits: traitsOf(value) },
      );
      expect(traits.body.data.setProviderTraits.__typename).toBe('ResourceProviderPayload');
      generations.set(w, traits.body.data.setProviderTraits.provider.generation);
      acknowledged.set(w, value);
      return traits;
    });
    await new Promise((r) => setTimeout(r, 1_500));
    server.child.kill('SIGKILL');
    expect((await server.exited).signal).toBe('SIGKILL');
    await running.done;
    expect(running.answers.length, running.failures.join('\n')).toBeGreaterThan(writers * 3);

    const db = openDatabase(dbFile);
    expect(db.sqlite.pragma('integrity_check', { simple: true })).toBe('ok');
    expect(db.sqlite.pragma('foreign_key_check')).toEqual([]);
    for (const [w, uuid] of providers.entries()) {
      const rows = db.sqlite
        .prepare('SELECT c.name, i.total FROM inventories i JOIN resource_classes c ON c.id = i.resource_class_id JOIN resource_providers p ON p.id = i.resource_provider_id WHERE p.uuid = ? ORDER BY c.name')
        .all(uuid) as { name: string; total: number }[];
      const traits = (
        db.sqlite.prepare('SELECT t.name FROM provider_traits pt JOIN traits t ON t.id = pt.trait_id JOIN resource_providers p ON p.id = pt.resource_provider_id WHERE p.uuid = ? ORDER BY t.name').all(uuid) as { name: string }[]
      ).map((r) => r.name);
      const n = rows.find((r) => r.name === 'VCPU')!.total;
      // The three inventories come from one mutation.
      expect(rows).toEqual([
        { name: 'DISK_GB', total: n },
        { name: 'MEMORY_MB', total: n * 1024 },
        { name: 'VCPU', total: n },
      ]);
      // The traits are this step's, or the one before (the kill fell between the two mutations): both or none.
      expect([traitsOf(n), n > 1 ? traitsOf(n - 1) : []]).toContainEqual(traits);
      // Nothing acknowledged is missing: at most the step in flight at the kill went further.
      const last = acknowledged.get(w) ?? 0;
      expect(n).toBeGreaterThanOrEqual(last);
      expect(n).toBeLessThanOrEqual(last + 1);
      if (n === last) expect(traits).toEqual(traitsOf(n));
    }
    console.log(`SIGKILL during writes: ${running.answers.length} write pairs acknowledged before the kill; integrity ok, none half applied, none acknowledged missing`);
    db.close();
  }, 60_000);
});

describe('SIGKILL during a backup', () => {
  it('leaves the live database as it was, and the torn copy is refused by restore', async () => {
    const dbFile = tempDbFile('live.db');
    const db = openDatabase(dbFile);
    const uuid = (i: number) => `b0000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
    const providers = Array.from({ length: 20_000 }, (_, i) => ({ uuid: uuid(i), name: `bulk-${i}`, parent: null }));
    importSnapshot(db, {
      providers,
      inventories: Object.fromEntries(providers.map((p) => [p.uuid, { VCPU: 64, MEMORY_MB: { total: 262144, reserved: 2048 }, DISK_GB: 2000 }])),
      traits: Object.fromEntries(providers.map((p) => [p.uuid, ['COMPUTE_NODE', 'CUSTOM_BULK']])),
    });
    const before = JSON.stringify(exportSnapshot(db));
    db.close();
    const copy = tempDbFile('copy.db');
    const partial = `${copy}.partial`;
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', 'backup', copy, '--db', dbFile], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout!.on('data', (c) => (output += c));
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
    // Kill it once the copy has some pages, long before it has them all.
    const started = Date.now();
    while (!(existsSync(partial) && statSync(partial).size > 1_000_000) && Date.now() - started < 30_000) await new Promise((r) => setTimeout(r, 2));
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');
    expect(output).not.toContain('Backed up');
    // Nothing under the backup's name: only the partial copy, smaller than the database.
    expect(existsSync(copy)).toBe(false);
    const torn = statSync(partial).size;
    expect(torn).toBeLessThan(statSync(dbFile).size);

    // The live database is whole and unchanged.
    const live = openDatabase(dbFile);
    expect(live.sqlite.pragma('integrity_check', { simple: true })).toBe('ok');
    expect(JSON.stringify(exportSnapshot(live))).toBe(before);
    live.close();
    // The torn copy is refused by restore, whose target is left untouched.
    const target = tempDbFile('restored.db');
    const run = (args: string[]) =>
      new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
        const p = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
        let stdout = '';
        let stderr = '';
        p.stdout!.on('data', (c) => (stdout += c));
        p.stderr!.on('data', (c) => (stderr += c));
        p.on('exit', (code) => resolve({ code, stdout, stderr }));
      });
    const refused = await run(['restore', partial, '--db', target]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('is an interrupted copy');
    expect(existsSync(target)).toBe(false);
    // The same backup taken again completes.
    const again = await run(['backup', copy, '--db', dbFile]);
    expect(again.code, again.stderr).toBe(0);
    expect(existsSync(partial)).toBe(false);
    console.log(`SIGKILL during a backup: copy torn at ${torn} of ${statSync(dbFile).size} bytes; live database intact; restore refused it (${refused.stderr.trim().split('\n')[0]}); the backup taken again completed`);
  }, 90_000);
});
