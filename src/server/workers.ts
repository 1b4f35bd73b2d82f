// serve --workers N: N processes answering on one port (node:cluster), each with its own database
// connection and candidate index (kept fresh across processes by SQLite's data_version, as for any
// other writer). The primary only forks, relays each worker's change events to the others (so a
// subscriber on one worker sees what another wrote), and sums the workers' metrics for /metrics.
import type { Serializable } from 'node:child_process';
import cluster, { type Worker } from 'node:cluster';
import { availableParallelism } from 'node:os';
import { AggregatorRegistry, type Registry } from 'prom-client';

const CHANGE = 'placement-gql:change';
const METRICS_ASKED = 'placement-gql:metrics?';
const METRICS = 'placement-gql:metrics';
const CANNOT_START = 'placement-gql:cannot-start';

/**
 * Sends over the IPC channel, if it is still open. A worker that is stopping (or the primary, seen
 * from a worker) closes its channel; a message for it has nobody to reach, and without a callback
 * Node reports that as an 'error' event that would end the process.
 */
function sendIfOpen(to: { connected?: boolean; send?: (message: Serializable, callback: (error: Error | null) => void) => unknown }, message: Serializable) {
  if (to.connected === false || !to.send) return;
  to.send(message, () => {});
}

interface ChangeMessage {
  type: typeof CHANGE;
  topic: string;
  args: unknown[];
}

/** The default number of workers: one per core. */
export const defaultWorkers = () => availableParallelism();

/** Whether this process is a worker of serve --workers. */
export const isWorker = () => cluster.isWorker;

/** In a worker that cannot start (its port is taken): tells the primary why, which says it once for all, and exits 1. */
export function workerCannotStart(reason: string) {
  if (!process.send) process.exit(1);
  process.send({ type: CANNOT_START, reason }, () => process.exit(1));
}

/**
 * The workers' Node options: the primary's, with a larger young generation (it shortens the garbage
 * collection of large answers) unless one is set already.
 */
function workerExecArgv(): string[] {
  const set = [...process.execArgv, process.env.NODE_OPTIONS ?? ''].some((option) => option.includes('--max-semi-space-size'));
  return set ? process.execArgv : [...process.execArgv, '--max-semi-space-size=32'];
}

/**
 * Runs the primary: forks `count` workers (the same command line), relays, aggregates, and on SIGINT or
 * SIGTERM stops them (each stops gracefully) and exits 0. `announce` is called once all are listening.
 */
export function runPrimary(count: number, announce: (port: number) => void): Promise<number> {
  const aggregator = new AggregatorRegistry();
  const alive = new Set<Worker>();
  let listening = 0;
  let stopping = false;
  let failure: string | null = null;
  let cannotStart: string | null = null;
  cluster.setupPrimary({ execArgv: workerExecArgv() });
  return new Promise((resolve) => {
    const fork = () => {
      const worker = cluster.fork();
      let ready = false;
      alive.add(worker);
      worker.on('message', (message: any) => {
        if (message?.type === CANNOT_START) cannotStart ??= String(message.reason);
        if (message?.type === CHANGE) for (const other of alive) if (other !== worker) sendIfOpen(other.process, message);
        if (message?.type === METRICS_ASKED) {
          aggregator.clusterMetrics().then(
            (text) => sendIfOpen(worker.process, { type: METRICS, id: message.id, text }),
            (error: Error) => sendIfOpen(worker.process, { type: METRICS, id: message.id, text: `# metrics of the workers could not be gathered: ${error.message}\n` }),
          );
        }
      });
      worker.once('listening', (address) => {
        ready = true;
        if (++listening === count) announce(address.port);
      });
      worker.on('exit', (code, signal) => {
        alive.delete(worker);
        if (!stopping && !ready) {
          // A worker that could not start (port taken, bad configuration): stop them all, and say so in the exit code.
          failure = `Worker ${worker.process.pid} exited before it was listening (${signal ?? `code ${code}`}); stopping.`;
          stopping = true;
          for (const w of alive) w.process.kill('SIGTERM');
        } else if (!stopping) {
          console.error(`Worker ${worker.process.pid} exited (${signal ?? `code ${code}`}); starting another.`);
          fork();
        }
        if (stopping && alive.size === 0) {
          // Said once all are gone, by then every worker's word on why it could not start has arrived.
          if (failure) console.error(cannotStart ? `placement-gql: ${cannotStart}` : failure);
          resolve(failure ? 1 : 0);
        }
      });
    };
    for (let i = 0; i < count; i++) fork();
    const stop = () => {
      if (stopping) return;
      stopping = true;
      for (const w of alive) w.process.kill('SIGTERM');
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}

/** In a worker: what this worker publishes goes to the others too, and what they publish is published here. */
export function relayChanges<F extends { publish: (topic: any, ...args: any[]) => void }>(feed: F): F {
  if (!cluster.isWorker || !process.send) return feed;
  const publishHere = feed.publish.bind(feed);
  process.on('message', (message: ChangeMessage) => {
    if (message?.type === CHANGE) publishHere(message.topic, ...message.args);
  });
  return {
    ...feed,
    publish(topic: string, ...args: unknown[]) {
      publishHere(topic, ...args);
      sendIfOpen(process, { type: CHANGE, topic, args } satisfies ChangeMessage);
    },
  };
}

/** In a worker: the registry the primary sums, and a way to ask it for the sum of every worker's. */
export function metricsAcrossWorkers(registry: Registry): () => Promise<string> {
  // Constructing one makes prom-client answer the primary's requests for this worker's figures.
  new AggregatorRegistry();
  AggregatorRegistry.setRegistries([registry]);
  let next = 0;
  const waiting = new Map<number, (text: string) => void>();
  process.on('message', (message: any) => {
    if (message?.type !== METRICS) return;
    waiting.get(message.id)?.(message.text);
    waiting.delete(message.id);
  });
  return () =>
    new Promise((resolve) => {
      const id = next++;
      waiting.set(id, resolve);
      sendIfOpen(process, { type: METRICS_ASKED, id });
    });
}
