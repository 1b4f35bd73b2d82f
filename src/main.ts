// The placement-gql command line: the usage text, serve, and the dispatch of every other command
// (commands.ts; osc-placement's commands in src/cli/).
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { openDatabase, DEFAULT_DB_FILE } from './db/client.js';
import { createServer } from './server.js';
import { createNodeServer, type NodeServer } from './server/http.js';
import { AccessConfigError, HOW_TO_CONFIGURE_TOKENS, isLoopback, loadAccessConfig } from './server/access.js';
import { loopbackHosts, normalOrigin } from './server/browsers.js';
import { jsonLogger } from './server/plugins.js';
import { importSnapshot, isEmpty } from './modules/snapshot/snapshot.service.js';
import { CommandError, explainParseArgsError, UsageError } from './command.js';
import { configureOperatorValidators } from './catalog/extra-specs-operators.js';
import { OSC_COMMANDS } from './cli/osc-names.js';
import { databaseOnlySession, gatewayOptions, PLACEMENT_DB_USAGE, placementDbSource, UPSTREAM_FLAGS, UpstreamConfigError, upstreamSession } from './mirror/gateway.options.js';
import { UPSTREAM_USAGE } from './upstream/clouds.js';
import { Gateway } from './mirror/gateway.js';
import { reasonLine } from './mirror/skipped.store.js';
import { DatabaseRefused, explainFailure, isExplained } from './upstream/failure.js';
import { defaultWorkers, isWorker, metricsAcrossWorkers, runPrimary, workerCannotStart } from './server/workers.js';

const USAGE = `placement-gql: a GraphQL gateway over the OpenStack Placement domain

Usage:
  placement-gql --version         print the version
  placement-gql serve [--db FILE] [--port N] [--host ADDR] [--tokens FILE] [--demo] [--quiet]
                                  serve GraphQL and GraphiQL; --demo loads the demo cloud into an empty database;
                                  any address but loopback needs bearer tokens (--tokens FILE or PLACEMENT_TOKENS)
                                  [--metrics-open]: serve /metrics without a token when tokens are configured
                                  [--cors-origin ORIGIN,...]: let pages of those sites (scheme://host[:port]) call this server, GraphQL
                                  and Placement's API under /placement (or PLACEMENT_CORS_ALLOWED_ORIGIN); by default only this
                                  server's own pages may (no credentials are ever allowed to other sites)
                                  [--allowed-host NAME,...]: on loopback, names besides localhost, 127.0.0.1 and [::1] that the
                                  Host header may carry (NAME or NAME:PORT; others are refused against DNS rebinding)
                                  [--workers N]: N processes on one port (default: one per core; gateway mode is one process)
                                  [--max-connections N] [--max-connections-per-address N] [--max-streams N] [--max-streams-per-address N]:
                                  caps on open connections and subscription streams (defaults 1000, 100, 500, 20)
                                  [--extra-specs FILE]: operators' extra-spec validators (JSON or YAML; or PLACEMENT_EXTRA_SPECS_FILE)
                                  [upstream options] [--sync-interval S]: gateway mode, a live Placement mirrored every S seconds
                                  (default 15) and written through to
  placement-gql sync [--db FILE] [upstream options] [--placement-db URL]
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
                                  replace the database with a backup made by backup, finished and checked (a file a backup
                                  cut short leaves is refused); stop the server first
  placement-gql apply-config DIR [--db FILE] [--dry-run] [--allow-empty]
                                  apply Nova provider-config YAML documents (*.yaml, in lexicographic order);
                                  a directory without any is refused unless --allow-empty (it removes what earlier
                                  documents set); symbolic links are followed only to files inside DIR
  placement-gql docs extra-specs|metadefs [--out FILE] [--extra-specs FILE]
                                  write reference documentation from the extra-spec registry
  placement-gql resource provider list [--name N] [--uuid U] [--resource RC=N] [--required T] [--forbidden T] [--member-of AGG,...] [--in-tree U]
  placement-gql resource provider show UUID [--allocations]
  placement-gql resource provider create|set|delete ...
  placement-gql resource provider inventory list|show|set|delete|class set UUID ...
  placement-gql resource provider trait list|set|delete, aggregate list|set, usage show UUID ...
  placement-gql resource provider allocation show|set|unset|delete CONSUMER ...
  placement-gql resource class list|show|create|set|delete [NAME]
  placement-gql resource usage show PROJECT [--user-id USER]
  placement-gql trait list [--name startswith:P|in:A,B] [--associated]; trait show|create|delete NAME
  placement-gql allocation candidate list --resource RC=N ... [--required T] [--forbidden T] [--member-of AGG,...]
                                  [--group N ...] [--group-policy none|isolate] [--limit N] [--explain [--provider UUID]]
  placement-gql capacity show [--group-by aggregate|trait|root|provider ...] [provider list filters]
  placement-gql capacity headroom [--flavor NAME ...] [--image NAME]
                                  osc-placement's commands, with its flags and columns: -f table|csv|json|value|yaml|shell,
                                  -c COLUMN, --sort-column, --max-width, --os-placement-api-version; against the database
                                  (--db FILE), or a server with --url URL [--token T] (or PLACEMENT_URL, PLACEMENT_TOKEN);
                                  each command has --help
  placement-gql schema [--check|--write]
                                  print the GraphQL schema (sorted); --check compares it with schema.graphql, --write updates it

${UPSTREAM_USAGE}

${PLACEMENT_DB_USAGE}

The database defaults to ${DEFAULT_DB_FILE}; PLACEMENT_DB or --db changes it.`;

export const DEMO_CLOUD = fileURLToPath(new URL('../demo/demo-cloud.json', import.meta.url));
// One level up from src/main.ts and from dist/main.js alike.
const PACKAGE_JSON = new URL('../package.json', import.meta.url);

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

function badFlag(flag: string, text: string, expected: string): never {
  throw new UsageError(`${flag} must be ${expected}, not '${text}'`);
}

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
  const upstream = command === 'serve' || command === 'sync' ? `\n\n${UPSTREAM_USAGE}\n\n${PLACEMENT_DB_USAGE}` : '';
  return `Usage:\n${own.join('\n')}${upstream}\n\nThe database defaults to ${DEFAULT_DB_FILE}; PLACEMENT_DB or --db changes it.`;
}

async function main(argv: string[]): Promise<number> {
  if (argv[0] === '--help' || argv[0] === '-h') {
    console.log(USAGE);
    return 0;
  }
  if (argv[0] === '--version') {
    console.log(`placement-gql ${JSON.parse(readFileSync(PACKAGE_JSON, 'utf8')).version}`);
    return 0;
  }
  // openstack takes --os-placement-api-version before the command too.
  if (argv[0] === '--os-placement-api-version' && OSC_COMMANDS.includes(argv[2])) argv = [...argv.slice(2), ...argv.slice(0, 2)];
  else if (argv[0]?.startsWith('--os-placement-api-version=') && OSC_COMMANDS.includes(argv[1])) argv = [...argv.slice(1), argv[0]];
  const [command, ...rest] = argv;
  if (OSC_COMMANDS.includes(command)) {
    const { runOscCommand } = await import('./cli/osc.command.js');
    return runOscCommand(argv, process.env.PLACEMENT_DB ?? DEFAULT_DB_FILE);
  }
  const { values, positionals } = parseCommandLine(command, rest, {
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
    'allow-empty': { type: 'boolean' },
    json: { type: 'boolean' },
    'metrics-open': { type: 'boolean' },
    'cors-origin': { type: 'string' },
    'allowed-host': { type: 'string' },
    replace: { type: 'boolean' },
    workers: { type: 'string' },
    'max-connections': { type: 'string' },
    'max-connections-per-address': { type: 'string' },
    'max-streams': { type: 'string' },
    'max-streams-per-address': { type: 'string' },
    help: { type: 'boolean', short: 'h' },
    ...UPSTREAM_FLAGS,
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
      // Workers read the same configuration: the primary alone warns.
      const access = loadAccessConfig(values.tokens ?? process.env.PLACEMENT_TOKENS_FILE, process.env.PLACEMENT_TOKENS, isWorker() ? () => {} : undefined);
      const list = (text: string | undefined) => (text ?? '').split(',').filter(Boolean);
      const corsOrigins = list(values['cors-origin'] ?? process.env.PLACEMENT_CORS_ALLOWED_ORIGIN).map((text) => normalOrigin(text) ?? badFlag('--cors-origin', text, 'an origin: scheme://host[:port], no path'));
      const extraHosts = list(values['allowed-host']).map((text) => (/^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(:\d{1,5})?$/i.test(text) ? text : badFlag('--allowed-host', text, 'a host name, NAME or NAME:PORT')));
      if (access.tokens.size === 0 && !isLoopback(host)) {
        console.error(`Refusing to serve on ${host} without access control: no bearer tokens are configured.\n${HOW_TO_CONFIGURE_TOKENS}`);
        return 1;
      }
      const validators = configureOperatorValidators(values['extra-specs'] ?? process.env.PLACEMENT_EXTRA_SPECS_FILE);
      if (validators.message) (validators.ok ? console.log : console.error)(validators.message);
      if (!validators.ok) return 1;
      const dbSource = placementDbSource(values);
      const gatewayMode = values.upstream !== undefined || values['os-cloud'] !== undefined || dbSource !== null;
      const workersText = values.workers ?? (gatewayMode ? '1' : String(defaultWorkers()));
      if (!/^[1-9]\d{0,2}$/.test(workersText)) throw new UsageError(`--workers must be a whole number from 1 to 999, not '${workersText}'`);
      // The mirror's state (last refresh, staleness) lives in the process that refreshes it: gateway mode is one process.
      if (gatewayMode && Number(workersText) > 1) throw new UsageError('gateway mode runs as one process: --workers must be 1 with --upstream, --os-cloud or --placement-db');
      const caps: Record<string, number> = {};
      for (const [flag, limit] of [['max-connections', 'maxConnections'], ['max-connections-per-address', 'maxConnectionsPerAddress'], ['max-streams', 'maxStreams'], ['max-streams-per-address', 'maxStreamsPerAddress']]) {
        const text = values[flag as 'max-streams'];
        if (text === undefined) continue;
        if (!/^[1-9]\d{0,6}$/.test(text)) throw new UsageError(`--${flag} must be a whole number from 1 to 9999999, not '${text}'`);
        caps[limit] = Number(text);
      }
      const session = (await upstreamSession(values, { requireFlag: true })) ?? (dbSource ? databaseOnlySession(dbSource.describe!) : null);
      const intervalText = String(values['sync-interval'] ?? '15');
      const interval = Number(intervalText);
      if (session && (!/^\d+(\.\d+)?$/.test(intervalText) || interval < 1)) throw new UsageError(`--sync-interval must be a number of seconds, at least 1, not '${intervalText}'`);
      if (session && values.demo) throw new UsageError('--demo loads the demo cloud into a standalone database; in gateway mode the database is the mirror of the upstream');
      const upstreamOptions = session ? gatewayOptions(values) : null;
      const db = openDatabase(dbFile);
      if (values.demo && isEmpty(db)) {
        const summary = importSnapshot(db, JSON.parse(readFileSync(DEMO_CLOUD, 'utf8')));
        console.log(`Loaded the demo cloud into ${dbFile}: ${summary.providers} providers, ${summary.consumers} consumers.`);
      }
      if (Number(workersText) > 1 && !isWorker()) {
        // The primary: the database is migrated (and the demo loaded) above, once; the workers serve.
        db.close();
        const shown = host.includes(':') ? `[${host}]` : host;
        stopWhenNpmEnds();
        return runPrimary(Number(workersText), (bound) => {
          console.log(`placement-gql serving ${dbFile} with ${workersText} workers (${access.tokens.size ? `${access.tokens.size} bearer token(s)` : 'open access on loopback'})`);
          console.log(`GraphiQL: http://${shown}:${bound}/graphql`);
          console.log(`Dashboard: http://${shown}:${bound}/dashboard`);
        });
      }
      let gateway: Gateway | null = null;
      let reportedSkips = 0;
      if (session) {
        gateway = new Gateway(db, session, {
          ...upstreamOptions,
          source: dbSource ?? undefined,
          interval,
          onSync: ({ seconds, changes, error }) => {
            if (values.quiet) return;
            if (error) {
              console.error(`Refresh from ${session.describe()} failed after ${seconds.toFixed(1)} s; serving the mirror as it was: ${explainFailure(error)}`);
              // A fault of the gateway itself: its details for whoever reads the log (no secret is in them).
              if (!isExplained(error)) console.error(error);
            }
            else if (changes && (changes.added || changes.removed || changes.detailed || changes.allocationsRewritten))
              console.log(`Refreshed from Placement in ${seconds.toFixed(1)} s: ${changes.providers} providers, ${changes.added} added, ${changes.removed} removed, ${changes.detailed} changed, allocations changed on ${changes.allocationsRewritten}.`);
            for (const [service, c] of Object.entries(changes?.services ?? {})) {
              if (c.added || c.updated || c.removed) console.log(`Refreshed ${service}: ${c.added} added, ${c.updated} changed, ${c.removed} removed${c.skipped ? `, ${c.skipped} skipped` : ''}.`);
            }
            const skipped = changes && gateway!.status().skipped;
            if (skipped && skipped.count !== reportedSkips) {
              reportedSkips = skipped.count;
              if (skipped.count === 0) console.log('Every record of the upstream answers is mirrored again.');
              else console.error(`${skipped.count} record${skipped.count === 1 ? '' : 's'} of the upstream answers ${skipped.count === 1 ? 'is' : 'are'} not mirrored (upstream { skipped { records } } lists them): ${skipped.reasons.map(reasonLine).join('; ')}`);
            }
          },
        });
        // A database that is not this upstream's mirror is refused before anything is served or read
        // into it; when the upstream cannot say where Placement is yet, that is checked before the first write.
        const claimed = await Promise.race([gateway.claim().then(() => null, (error: unknown) => error), new Promise((resolve) => setTimeout(resolve, 10_000, null).unref())]);
        if (claimed instanceof DatabaseRefused) {
          console.error(`placement-gql: ${claimed.message}`);
          gateway.stop();
          db.close();
          return 1;
        }
        gateway.start();
      }
      // Filled once the port is bound (it may be chosen by the system): no request arrives before.
      const allowedHosts = isLoopback(host) ? new Set<string>() : undefined;
      const yoga = createServer({
        db,
        gateway,
        access,
        browsers: { allowedHosts, corsOrigins },
        limits: caps,
        metricsOpen: values['metrics-open'],
        processMetrics: true,
        history: {},
        graphiqlQuery: EXAMPLE_QUERY,
        log: values.quiet ? null : jsonLogger,
      });
      if (isWorker()) yoga.metrics.acrossWorkers(metricsAcrossWorkers(yoga.metrics.registry));
      const node = createNodeServer(yoga);
      const { http } = node;
      await listen(http, port, host);
      for (const name of loopbackHosts(host, (http.address() as AddressInfo).port, extraHosts)) allowedHosts?.add(name);
      const shown = host.includes(':') ? `[${host}]` : host;
      if (isWorker()) {
        stopOnSignals(node, db, gateway, false);
        return new Promise(() => {});
      }
      if (session) {
        console.log(
          dbSource
            ? `Gateway mode: mirroring Placement's database ${dbSource.describe} into ${dbFile} every ${gateway!.interval} s; writes go to Placement's API first (${session.describe()}).`
            : `Gateway mode: mirroring Placement at ${session.describe()} into ${dbFile} every ${gateway!.interval} s; writes go to Placement first.`,
        );
        console.log('Nova, Glance and Ironic are mirrored read-only where the service catalog (or --nova-url, --glance-url, --ironic-url) has them: see upstream { services }.');
      }
      console.log(`placement-gql serving ${dbFile} (${access.tokens.size ? `${access.tokens.size} bearer token(s)` : 'open access on loopback'})`);
      console.log(`GraphiQL: http://${shown}:${port}/graphql`);
      console.log(`Dashboard: http://${shown}:${port}/dashboard`);
      stopOnSignals(node, db, gateway, true);
      stopWhenNpmEnds();
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
    if (error instanceof CommandError && isWorker()) return workerCannotStart(error.message);
    if (error instanceof CommandError) {
      console.error(`placement-gql: ${error.message}`);
      return process.exit(1);
    }
    if (error instanceof UsageError || error instanceof UpstreamConfigError) {
      console.error(`placement-gql: ${(error as Error).message}\nSee 'placement-gql --help'.`);
      return process.exit(1);
    }
    // better-sqlite3's refusals of the --db file (not a database, in a directory that does not exist, read-only).
    const code = (error as any)?.code;
    if (String(code).startsWith('SQLITE_') || /^Cannot open database/.test((error as Error)?.message)) {
      console.error(`placement-gql: cannot use the database: ${(error as Error).message}${code ? ` (${code})` : ''}; check --db or PLACEMENT_DB.`);
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

type Flags = NonNullable<Parameters<typeof parseArgs>[0]>['options'] & {};

/** The flags of a command line (parseArgs, strict), a mistake in them refused in the CLI's words. */
function parseCommandLine<O extends Flags>(command: string | undefined, args: string[], options: O) {
  try {
    return parseArgs({ args, allowPositionals: true, options });
  } catch (error) {
    if (!String((error as any)?.code).startsWith('ERR_PARSE_ARGS_')) throw error;
    const message = explainParseArgsError(error as Error, command, Object.keys(options));
    // A suggestion is the whole hint; otherwise the command's --help lists the flags.
    throw message.endsWith('?') ? new CommandError(message) : new UsageError(message);
  }
}

/** Listens on host:port; an address that cannot be had is a CommandError saying which, and what to do. */
function listen(http: NodeServer['http'], port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const refused = (error: NodeJS.ErrnoException) => {
      const where = `port ${port} on ${host}`;
      const why =
        error.code === 'EADDRINUSE'
          ? `${where} is in use by another program (another placement-gql?); stop it, or serve on another port with --port N`
          : error.code === 'EACCES'
            ? `no permission to listen on ${where} (ports below 1024 need root or CAP_NET_BIND_SERVICE); choose one with --port N`
            : error.code === 'EADDRNOTAVAIL' || error.code === 'ENOTFOUND' || error.code === 'EAI_AGAIN'
              ? `${host} is not an address of this machine; choose one with --host ADDR`
              : `cannot listen on ${where}: ${error.message}`;
      reject(new CommandError(why));
    };
    http.once('error', refused);
    http.listen(port, host, () => {
      http.off('error', refused);
      resolve();
    });
  });
}

/**
 * Started through npm (`npx placement-gql`, `npm start`), this process runs under a shell that npm started,
 * and npm passes a SIGTERM or SIGINT to that shell alone, which ends without passing it on. So here the
 * end of the parent counts as a SIGTERM: the server stops as it would on one, and leaves no orphan.
 */
function stopWhenNpmEnds() {
  if (!process.env.npm_lifecycle_event) return;
  const parent = process.ppid;
  const watch = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(watch);
    process.kill(process.pid, 'SIGTERM');
  }, 500);
  watch.unref();
}
