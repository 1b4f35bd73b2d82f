// A stand-in for a live Placement in the tests: an HTTP server that answers from answers recorded
// from Placement 8.0.0 (test/fixtures/upstream/record.py). The recorded cloud goes through phases;
// each write the tests send through the gateway is matched with its recorded body and microversion
// and answered as Placement answered it, moving to the phase it led to. A write that was not recorded
// is refused with 400, so a gateway that sends something else fails the test.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fixture } from './helpers.js';

interface Answer {
  status: number;
  body: unknown;
}
interface Write {
  method: string;
  path: string;
  request: unknown;
  /** The microversion it was sent at, when not the gateway's own (1.39). */
  microversion?: string;
  status: number;
  answer: unknown;
  next: string | null;
}
export interface Phase {
  name: string;
  routes: Record<string, Answer>;
  writes: Write[];
}
export interface Recording {
  phases: Phase[];
  unauthorized: Answer;
  forbidden: Answer;
  not_found: Answer;
}

export const recording = (): Recording => fixture('./fixtures/upstream/placement-8.0.0.json');

/** Canonical JSON: equal objects give equal text whatever their key order (and names in a list are a set, as traits are). */
const canonical = (v: unknown): string =>
  v === null || typeof v !== 'object'
    ? JSON.stringify(v)
    : Array.isArray(v)
      ? `[${(v.every((x) => typeof x === 'string') ? [...v].sort() : v).map(canonical).join(',')}]`
      : `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canonical((v as any)[k])}`).join(',')}}`;

export async function startFakePlacement(rec: Recording) {
  let phase = 0;
  let failures: number[] = [];
  const state = {
    /** The token Placement accepts; anything else is answered 401 as Keystone's middleware does. */
    validToken: 'admin',
    /** Tokens of users without the admin role: answered 403 as Placement's policy does. */
    userTokens: new Set(['someone']),
    /** Every request, as "METHOD path". */
    requests: [] as string[],
    /** Every write received, with its body and microversion. */
    writes: [] as { method: string; path: string; body: unknown; microversion: string }[],
    /** Answers this many requests with a 503 from the proxy in front, then answers again. */
    failNext(n: number, status = 503) {
      failures = Array(n).fill(status);
    },
    /** Closes every connection after this many more requests (Placement killed mid-sync); null: never. */
    dieAfter: null as number | null,
    /**
     * Answers the requests it takes (returning true) itself, as a broken or hostile upstream would
     * (slowly, hugely, not in JSON); the others are answered from the recording.
     */
    intercept: null as ((key: string, res: ServerResponse) => boolean) | null,
    setPhase(name: string) {
      const i = rec.phases.findIndex((p) => p.name === name);
      if (i < 0) throw new Error(`no recorded phase ${name}`);
      phase = i;
    },
    get phase() {
      return rec.phases[phase].name;
    },
  };
  const send = (res: ServerResponse, a: Answer) => {
    const text = a.body === null || a.body === undefined ? '' : JSON.stringify(a.body);
    res.writeHead(a.status, text ? { 'content-type': 'application/json' } : {});
    res.end(text);
  };
  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const key = `${req.method} ${req.url}`;
    state.requests.push(key);
    if (state.dieAfter !== null && state.dieAfter-- <= 0) {
      req.socket.destroy();
      return;
    }
    const failure = failures.shift();
    if (failure) return send(res, { status: failure, body: null });
    if (state.userTokens.has(String(req.headers['x-auth-token']))) return send(res, rec.forbidden);
    if (req.headers['x-auth-token'] !== state.validToken) return send(res, rec.unauthorized);
    const microversion = String(req.headers['openstack-api-version']).replace(/^placement /, '');
    // Reads are sent at the negotiated microversion; a write at the one it was recorded at.
    if (req.method === 'GET' && microversion !== '1.39' && req.url !== '/') return send(res, { status: 400, body: { errors: [{ detail: 'unexpected microversion' }] } });
    if (state.intercept?.(key, res)) return;
    const current = rec.phases[phase];
    if (req.method === 'GET') return send(res, current.routes[key] ?? rec.not_found);
    const body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : null;
    state.writes.push({ method: req.method!, path: req.url!, body, microversion });
    const index = current.writes.findIndex(
      (w) => w.method === req.method && w.path === req.url && canonical(w.request) === canonical(body) && (w.microversion ?? '1.39') === microversion,
    );
    if (index < 0) return send(res, { status: 400, body: { errors: [{ status: 400, code: 'test.unrecorded', detail: `unrecorded write ${key} at ${microversion} ${JSON.stringify(body)}` }] } });
    const write = current.writes[index];
    send(res, { status: write.status, body: write.answer });
    if (write.next) state.setPhase(write.next);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return Object.assign(state, {
    url,
    close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  });
}

const LISTING = `{ resourceProviders(first: 100) { nodes {
  uuid name generation parent { uuid } root { uuid }
  inventories { resourceClass total reserved minUnit maxUnit stepSize allocationRatio used }
  traits aggregates } } }`;

/** What Placement's answers in a phase say the listing of every provider must be. */
export function expectedListing(phase: Phase) {
  const get = (path: string) => phase.routes[`GET ${path}`].body as any;
  return get('/resource_providers')
    .resource_providers.map((p: any) => {
      const inventories = get(`/resource_providers/${p.uuid}/inventories`).inventories;
      const usages = get(`/resource_providers/${p.uuid}/usages`).usages;
      return {
        uuid: p.uuid,
        name: p.name,
        generation: p.generation,
        parent: p.parent_provider_uuid ? { uuid: p.parent_provider_uuid } : null,
        root: { uuid: p.root_provider_uuid },
        inventories: Object.entries<any>(inventories)
          .map(([rc, i]) => ({
            resourceClass: rc,
            total: i.total,
            reserved: i.reserved,
            minUnit: i.min_unit,
            maxUnit: i.max_unit,
            stepSize: i.step_size,
            allocationRatio: i.allocation_ratio,
            used: usages[rc] ?? 0,
          }))
          .sort((a, b) => a.resourceClass.localeCompare(b.resourceClass)),
        traits: [...get(`/resource_providers/${p.uuid}/traits`).traits].sort(),
        aggregates: [...get(`/resource_providers/${p.uuid}/aggregates`).aggregates].sort(),
      };
    })
    .sort((a: any, b: any) => a.uuid.localeCompare(b.uuid));
}

/** The listing of every provider, from the mirror, in the order of expectedListing. */
export async function listing(gql: (q: string) => Promise<any>) {
  const { data } = await gql(LISTING);
  return data.resourceProviders.nodes
    .map((p: any) => ({ ...p, inventories: [...p.inventories].sort((a: any, b: any) => a.resourceClass.localeCompare(b.resourceClass)), traits: [...p.traits].sort(), aggregates: [...p.aggregates].sort() }))
    .sort((a: any, b: any) => a.uuid.localeCompare(b.uuid));
}
