// The placement-gql command line: the usage text, serve, and the dispatch of every other command
// (commands.ts; osc-placement's read commands in src/cli/).
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { openDatabase, DEFAULT_DB_FILE } from './db/client.js';
import { createServer } from './server.js';
import { createNodeServer, type NodeServer } from './server/http.js';
import { AccessConfigError, HOW_TO_CONFIGURE_TOKENS, isLoopback, loadAccessConfig } from './server/access.js';
import { jsonLogger } from './server/plugins.js';
import { importSnapshot, isEmpty } from './modules/snapshot/snapshot.service.js';
import { UsageError } from './command.js';
import { configureOperatorValidators } from './catalog/extra-specs-operators.js';
import { OSC_COMMANDS } from './cli/osc-names.js';
import { UPSTREAM_FLAGS, UpstreamConfigError, upstreamConcurrency, upstreamSession } from './upstream/options.js';
import { UPSTREAM_USAGE } from './upstream/clouds.js';
import { Gateway } from './upstream/gateway.js';
import { explainFailure } from './upstream/failure.js';
import { defaultWorkers, isWorker, metricsAcrossWorkers, runPrimary } from './server/workers.js';

const USAGE = `placement-gql: a GraphQL gateway over the OpenStack Placement domain

Usage:
  placement-gql serve [--db FILE] [--port N] [--host ADDR] [--tokens FILE] [--demo] [--quiet]
                                  serve GraphQL and GraphiQL; --demo loads the demo cloud into an empty database;
                                  any address but loopback needs bearer tokens (--tokens FILE or PLACEMENT_TOKENS)
                                  [--metrics-open]: serve /metrics without a token when tokens are configured
                                  [--cors-origin ORIGIN,...]: let pages of those sites (scheme://host[:port]) call Placement's
                                  API under /placement (or PLACEMENT_CORS_ALLOWED_ORIGIN)
                                  [--workers N]: N processes on one port (default: one per core; gateway mode is one process)
                                  [--max-connections N] [--max-connections-per-address N] [--max-streams N] [--max-streams-per-address N]:
                                  caps on open connections and subscription streams (defaults 1000, 100, 500, 20)
                                  [--extra-specs FILE]: operators' extra-spec validators (JSON or YAML; or PLACEMENT_EXTRA_SPECS_FILE)
                                  [upstream options] [--sync-interval S]: gateway mode, a live Placement mirrored every S seconds
                                  (default 15) and written through to
  placement-gql sync [--db FILE] [upstream options]
                                  mirror a live Placement into the database once (a progress bar on a terminal)
  placement-gql audit [--db FILE] [--json] [--extra-specs FILE]
                                  audit the cloud as it is (flavor extra specs, image properties, unschedulable flavor and
                                  image pairs, node trait drift, orphaned allocations); exit status 1 when there are findings
  placement-gql import FILE [--db FILE] [--replace]
                                  load a snapshot (JSON) in one transaction; a rejected file changes nothing;
                                  --replace: the snapshot replaces the database's whole content (same transaction)
  placement-gql export [--db FILE] [--out FILE]
                                  write the database as a snapshot (JSON) to stdout or FILE
  placement-gql backup FILE [--db FILE]
                                  copy the database to a new FILE while the server runs and writes (SQLite's backup API), then check it
  placement-gql restore FILE [--db FILE]
                                  replace the database with a backup after checking its integrity (stop the server first)
  placement-gql apply-config DIR [--db FILE] [--dry-run]
                                  apply Nova provider-config YAML documents (*.yaml, in lexicographic order)
  placement-gql docs extra-specs|metadefs [--out FILE] [--extra-specs FILE]
                                  write reference documentation from the extra-spec registry
  placement-gql resource provider list [--name N] [--uuid U] [--resource RC=N] [--required T] [--forbidden T] [--member-of AGG,...] [--in-tree U]
  placement-gql resource provider show UUID [--allocations]
  placement-gql resource provider inventory list|show UUID [RC]
  placement-gql resource provider trait list|aggregate list|usage show UUID
  placement-gql resource provider allocation show CONSUMER
  placement-gql resource usage show PROJECT [--user-id USER]
  placement-gql trait list [--name startswith:P|in:A,B] [--associated]
  placement-gql allocation candidate list --resource RC=N ... [--required T] [--forbidden T] [--member-of AGG,...]
                                  [--group N ...] [--group-policy none|isolate] [--limit N] [--explain [--provider UUID]]
  placement-gql capacity show [--group-by aggregate|trait|root|provider ...] [provider list filters]
  placement-gql capacity headroom [--flavor NAME ...] [--image NAME]
                                  osc-placement's read commands, with its flags and columns: a table, or -f json|value
                                  [-c COLUMN]; against the database (--db FILE), or a server with --url URL [--token T]
                                  (or PLACEMENT_URL, PLACEMENT_TOKEN); each command has --help
  placement-gql schema [--check|--write]
                                  print the GraphQL schema (sorted); --check compares it with schema.graphql, --write updates it

${UPSTREAM_USAGE}

The database defaults to ${DEFAULT_DB_FILE}; PLACEMENT_DB or --db changes it.`;

export const DEMO_CLOUD = fileURLToPath(new URL('../demo/demo-cloud.json', import.meta.url));

export const EXAMPLE_QUERY = `# A dashboard page: the first providers with their trees, resources and traits.
query Dashboard {
  resourceProviders(first: 10) {
    totalCount
    nodes {
      name
      uuid
      generation
      parent { name }
      children { name }
      inventories { resourceClass capacity used free }
      traits
      aggregates
    }
  }
}
`;

/** One command's part of USAGE (its lines and their continuations), for `placement-gql COMMAND --help`. */
function commandUsage(command: string): string | null {
  const lines = USAGE.split('\n');
  const own: string[] = [];
  let inside = false;
  for (const line of lines) {
    if (line.startsWith('  placement-gql ')) inside = line.startsWith(`  placement-gql ${command} `) || line === `  placement-gql ${command}`;
    else if (!line.startsWith('    ')) inside = false;
    if (inside) own.push(line);
  }
  if (own.length === 0) return null;
  const upstream = command === 'serve' || command === 'sync' ? `\n\n${UPSTREAM_USAGE}` : '';
  return `Usage:\n${own.join('\n')}${upstream}\n\nThe database defaults to ${DEFAULT_DB_FILE}; PLACEMENT_DB or --db changes it.`;
}

async function main(argv: string[]): Promise<number> {
  if (argv[0] === '--help' || argv[0] === '-h') {
    console.log(USAGE);
    return 0;
  }
  const [command, ...rest] = argv;
  if (OSC_COMMANDS.includes(command)) {
    const { runOscCommand } = await import('./cli/osc.command.js');
    return runOscCommand(argv, process.env.PLACEMENT_DB ?? DEFAULT_DB_FILE);
  }
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: {
      db: { type: 'string' },
      port: { type: 'string' },
      host: { type: 'string' },
      tokens: { type: 'string' },
      'extra-specs': { type: 'string' },
      quiet: { type: 'boolean' },
      out: { type: 'string' },
      demo: { type: 'boolean' },
      check: { type: 'boolean' },
      write: { type: 'boolean' },
      'dry-run': { type: 'boolean' },
      json: { type: 'boolean' },
      'metrics-open': { type: 'boolean' },
      'cors-origin': { type: 'string' },
      replace: { type: 'boolean' },
      workers: { type: 'string' },
      'max-connections': { type: 'string' },
      'max-connections-per-address': { type: 'string' },
      'max-streams': { type: 'string' },
      'max-streams-per-address': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
      ...UPSTREAM_FLAGS,
    },
  });
  const dbFile = values.db ?? process.env.PLACEMENT_DB ?? DEFAULT_DB_FILE;
  if (values.help || !command || command === 'help') {
    console.log((values.help && command && commandUsage(command)) || USAGE);
    return command ? 0 : 1;
  }
  switch (command) {
    case 'serve': {
      // Every flag is checked before the database is opened: a refused command line creates and changes nothing.
      const host = values.host ?? process.env.HOST ?? '127.0.0.1';
      const portText = values.port ?? process.env.PORT ?? '4000';
      const port = Number(portText);
      if (!/^\d+$/.test(portText) || port > 65535) throw new UsageError(`--port must be a whole number from 0 to 65535, not '${portText}'`);
      const access = loadAccessConfig(values.tokens ?? process.env.PLACEMENT_TOKENS_FILE, process.env.PLACEMENT_TOKENS);
      if (access.tokens.size === 0 && !isLoopback(host)) {
        console.error(`Refusing to serve on ${host} without access control: no bearer tokens are configured.\n${HOW_TO_CONFIGURE_TOKENS}`);
        return 1;
      }
      const corsOrigins = (values['cors-origin'] ?? process.env.PLACEMENT_CORS_ALLOWED_ORIGIN ?? '')
        .split(',')
        .map((o) => o.trim())
        .filter(Boolean);
      for (const origin of corsOrigins) {
        if (!/^https?:\/\/[^/?#\s]+$/.test(origin)) throw new UsageError(`--cors-origin takes origins (scheme://host[:port], no path), not '${origin}'`);
      }
      const validators = configureOperatorValidators(values['extra-specs'] ?? process.env.PLACEMENT_EXTRA_SPECS_FILE);
      if (validators.message) (validators.ok ? console.log : console.error)(validators.message);
      if (!validators.ok) return 1;
      const gatewayMode = values.upstream !== undefined || values['os-cloud'] !== undefined;
      const workersText = values.workers ?? (gatewayMode ? '1' : String(defaultWorkers()));
      if (!/^[1-9]\d{0,2}$/.test(workersText)) throw new UsageError(`--workers must be a whole number from 1 to 999, not '${workersText}'`);
      // The mirror's state (last refresh, staleness) lives in the process that refreshes it: gateway mode is one process.
      if (gatewayMode && Number(workersText) > 1) throw new UsageError('gateway mode runs as one process: --workers must be 1 with --upstream or --os-cloud');
      const caps: Record<string, number> = {};
      for (const [flag, limit] of [['max-connections', 'maxConnections'], ['max-connections-per-address', 'maxConnectionsPerAddress'], ['max-streams', 'maxStreams'], ['max-streams-per-address', 'maxStreamsPerAddress']]) {
        const text = values[flag as 'max-streams'];
        if (text === undefined) continue;
        if (!/^[1-9]\d{0,6}$/.test(text)) throw new UsageError(`--${flag} must be a whole number from 1 to 9999999, not '${text}'`);
        caps[limit] = Number(text);
      }
      const session = await upstreamSession(values, { requireFlag: true });
      const intervalText = String(values['sync-interval'] ?? '15');
      const interval = Number(intervalText);
      if (session && (!/^\d+(\.\d+)?$/.test(intervalText) || interval < 1)) throw new UsageError(`--sync-interval must be a number of seconds, at least 1, not '${intervalText}'`);
      const db = openDatabase(dbFile);
      if (values.demo && isEmpty(db)) {
        const summary = importSnapshot(db, JSON.parse(readFileSync(DEMO_CLOUD, 'utf8')));
        console.log(`Loaded the demo cloud into ${dbFile}: ${summary.providers} providers, ${summary.consumers} consumers.`);
      }
      if (Number(workersText) > 1 && !isWorker()) {
        // The primary: the database is migrated (and the demo loaded) above, once; the workers serve.
        db.close();
        const shown = host.includes(':') ? `[${host}]` : host;
        return runPrimary(Number(workersText), (bound) => {
          console.log(`placement-gql serving ${dbFile} with ${workersText} workers (${access.tokens.size ? `${access.tokens.size} bearer token(s)` : 'open access on loopback'})`);
          console.log(`GraphiQL: http://${shown}:${bound}/graphql`);
          console.log(`Dashboard: http://${shown}:${bound}/dashboard`);
        });
      }
      let gateway: Gateway | null = null;
      if (session) {
        gateway = new Gateway(db, session, {
          interval,
          concurrency: upstreamConcurrency(values),
          onSync: ({ seconds, changes, error }) => {
            if (values.quiet) return;
            if (error) console.error(`Refresh from ${session.describe()} failed after ${seconds.toFixed(1)} s; serving the mirror as it was: ${explainFailure(error) ?? error.message}`);
            else if (changes && (changes.added || changes.removed || changes.detailed || changes.allocationsRewritten))
              console.log(`Refreshed from Placement in ${seconds.toFixed(1)} s: ${changes.providers} providers, ${changes.added} added, ${changes.removed} removed, ${changes.detailed} changed, allocations changed on ${changes.allocationsRewritten}.`);
            for (const [service, c] of Object.entries(changes?.services ?? {})) {
              if (c.added || c.updated || c.removed) console.log(`Refreshed ${service}: ${c.added} added, ${c.updated} changed, ${c.removed} removed${c.skipped ? `, ${c.skipped} skipped` : ''}.`);
            }
          },
        });
        gateway.start();
      }
      const yoga = createServer({ db, gateway, access, corsOrigins, limits: caps, metricsOpen: values['metrics-open'], processMetrics: true, history: {}, graphiqlQuery: EXAMPLE_QUERY, log: values.quiet ? null : jsonLogger });
      if (isWorker()) yoga.metrics.acrossWorkers(metricsAcrossWorkers(yoga.metrics.registry));
      const node = createNodeServer(yoga);
      const { http } = node;
      await new Promise<void>((resolve) => http.listen(port, host, resolve));
      const shown = host.includes(':') ? `[${host}]` : host;
      if (isWorker()) {
        stopOnSignals(node, db, gateway, false);
        return new Promise(() => {});
      }
      if (session) {
        console.log(`Gateway mode: mirroring Placement at ${session.describe()} into ${dbFile} every ${gateway!.interval} s; writes go to Placement first.`);
        console.log('Nova, Glance and Ironic are mirrored read-only where the service catalog (or --nova-url, --glance-url, --ironic-url) has them: see upstream { services }.');
      }
      console.log(`placement-gql serving ${dbFile} (${access.tokens.size ? `${access.tokens.size} bearer token(s)` : 'open access on loopback'})`);
      console.log(`GraphiQL: http://${shown}:${port}/graphql`);
      console.log(`Dashboard: http://${shown}:${port}/dashboard`);
      stopOnSignals(node, db, gateway, true);
      return new Promise(() => {});
    }
    default: {
      const extra = await import('./commands.js');
      return extra.runCommand(command, { dbFile, positionals, values });
    }
  }
}

// A reader that stops early (`placement-gql schema | head`) is not an error.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});

main(process.argv.slice(2)).then(
  // Not process.exit(): it would cut off output still being written to a pipe.
  (code) => {
    process.exitCode = code;
  },
  (error) => {
    if (error instanceof AccessConfigError) {
      console.error(`Access control: ${error.message}\n${HOW_TO_CONFIGURE_TOKENS}`);
      return process.exit(1);
    }
    if (error instanceof UsageError || error instanceof UpstreamConfigError || String((error as any)?.code).startsWith('ERR_PARSE_ARGS_')) {
      console.error(`placement-gql: ${(error as Error).message}\nSee 'placement-gql --help'.`);
      return process.exit(1);
    }
    console.error(error);
    process.exit(1);
  },
);

/**
 * Graceful stop on SIGINT or SIGTERM (once, however many arrive): no new connections, idle ones closed,
 * subscription streams ended with a last event, requests in flight finish (up to 10 s; then the rest are
 * cut), and closing the database checkpoints the WAL. Under --workers each worker stops so, quietly.
 */
function stopOnSignals(node: NodeServer, db: { close(): unknown }, gateway: Gateway | null, report: boolean) {
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    gateway?.stop();
    const summary = await node.stop(10_000);
    db.close();
    console.log(`placement-gql ${report ? '' : `worker ${process.pid} `}stopped: ${summary.inFlight} request(s) in flight at the signal; ${summary.answered} of ${summary.received} request(s) read were answered, ${summary.cut} cut; database closed.`);
    process.exit(0);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}
