// osc-placement's everyday read commands (`openstack resource provider list`, `allocation candidate
// list`...), with its names, flags and columns, against the database file or a running server.
import { Command, CommanderError, Option } from 'commander';
import { ClientError, request, type Target } from './client.js';
import { addCapacityCommands } from './capacity.command.js';
import { FORMATS, FormatError, formatList, formatOne, PyFloat, type Cell, type Format, type OutputOptions } from './format.js';

interface CommonFlags {
  format: Format;
  column: string[];
  db?: string;
  url?: string;
  token?: string;
}

/** A failure the command reports on one line, exit 1 (as openstack does). */
class CommandFailed extends Error {}

const collect = (value: string, previous: string[] = []) => [...previous, value];
const list = (value: unknown) => (value ?? []) as string[];

function withCommon(command: Command): Command {
  return command
    .addOption(new Option('-f, --format <format>', 'output format').choices(FORMATS).default('table'))
    .option('-c, --column <name>', 'show only this column (repeat for more)', collect)
    .option('--db <file>', 'database file (default: PLACEMENT_DB or ./placement.db)')
    .option('--url <url>', 'a running placement-gql server instead of the database file (or PLACEMENT_URL)')
    .option('--token <token>', 'bearer token for --url (or PLACEMENT_TOKEN)')
    .helpOption('-h, --help', 'show this help');
}

function targetOf(flags: CommonFlags, defaultDb: string): Target {
  const url = flags.url ?? process.env.PLACEMENT_URL;
  if (flags.db && url) throw new CommandFailed('--db and --url exclude each other: read the file or ask the server');
  return { dbFile: flags.db ?? defaultDb, url, token: flags.token ?? process.env.PLACEMENT_TOKEN };
}

const output = (flags: CommonFlags): OutputOptions => ({ format: flags.format, columns: list(flags.column) });

/** RC=N as osc-placement reads --resource. */
function resourceAmount(text: string): { resourceClass: string; amount: number } {
  const parts = text.split('=');
  if (parts.length !== 2 || !parts[0] || !/^\d+$/.test(parts[1])) throw new CommandFailed(`--resource ${text}: must be of the form <resource_class>=<value>, the value a whole number`);
  return { resourceClass: parts[0], amount: Number(parts[1]) };
}

const PROVIDER_FIELDS = ['uuid', 'name', 'generation', 'root_provider_uuid', 'parent_provider_uuid'];
const PROVIDER_SELECTION = 'uuid name generation root { uuid } parent { uuid }';
type ProviderRow = { uuid: string; name: string; generation: number; root: { uuid: string }; parent: { uuid: string } | null };
const providerCells = (p: ProviderRow): Cell[] => [p.uuid, p.name, p.generation, p.root.uuid, p.parent?.uuid ?? null];

const PAGE = 1000;

/** Every node of a connection, page by page. */
async function allPages<T>(target: Target, query: string, variables: Record<string, unknown>, pick: (data: any) => { nodes: T[]; pageInfo: { hasNextPage: boolean; endCursor: string | null } }): Promise<T[]> {
  const nodes: T[] = [];
  let after: string | null = null;
  for (;;) {
    const page = pick(await request(target, query, { ...variables, first: PAGE, after }));
    nodes.push(...page.nodes);
    if (!page.pageInfo.hasNextPage) return nodes;
    after = page.pageInfo.endCursor;
  }
}

async function providerOrFail<T>(target: Target, uuid: string, selection: string, text = (e: string) => e): Promise<T> {
  const data = await request<{ resourceProvider: T | null }>(target, `query($uuid: UUID!) { resourceProvider(uuid: $uuid) { ${selection} } }`, { uuid });
  if (!data.resourceProvider) throw new CommandFailed(`${text(`No resource provider with uuid ${uuid} found`)} (HTTP 404)`);
  return data.resourceProvider;
}

/** The flags of `resource provider list`, Placement's GET /resource_providers filter. */
function filterOptions(command: Command): Command {
  return command
    .option('--uuid <uuid>', 'UUID of the resource provider')
    .option('--name <name>', 'Name of the resource provider')
    .option('--resource <resource_class>=<value>', 'an amount the provider must have the capacity to serve now; may be repeated', collect)
    .option('--in-tree <in_tree>', 'only providers in the tree of this provider')
    .option('--required <required>', 'a required trait; may be repeated; a comma-separated list means any of them', collect)
    .option('--forbidden <forbidden>', 'a forbidden trait; may be repeated', collect)
    .option('--member-of <member_of>', 'comma-separated aggregate UUIDs: in one of them; may be repeated (and)', collect);
}

/** Those flags as a ResourceProviderFilter. */
function filterOf(flags: Record<string, unknown>) {
  return {
    uuid: flags.uuid,
    name: flags.name,
    inTree: flags.inTree,
    resources: list(flags.resource).map(resourceAmount),
    required: list(flags.required).filter((t) => !t.includes(',')),
    anyOf: list(flags.required).filter((t) => t.includes(',')).map((t) => t.split(',')),
    forbidden: list(flags.forbidden),
    memberOf: list(flags.memberOf).map((m) => m.split(',')),
  };
}

/** The program's read commands, printing through io. */
export function oscProgram(defaultDb: string, io: Io): Command {
  const write = io.out;
  const program = new Command('placement-gql')
    .description('osc-placement read commands')
    .exitOverride()
    .configureOutput({
      writeOut: write,
      writeErr: io.err,
      outputError: (text, writeErr) => writeErr(`placement-gql: ${text.replace(/^error: /, '')}`),
    })
    .showHelpAfterError("See the command's --help.");

  const leaf = (parent: Command, name: string, description: string) => withCommon(parent.command(name).description(description));
  const run =
    <A extends unknown[]>(body: (target: Target, out: OutputOptions, ...args: A) => Promise<string>) =>
    async (...args: unknown[]) => {
      const command = args.at(-1) as Command;
      const flags = command.opts() as CommonFlags;
      write(await body(targetOf(flags, defaultDb), output(flags), ...(args.slice(0, -1) as A)));
    };

  const resource = program.command('resource').description('resource providers and usages');
  const provider = resource.command('provider').description('resource providers');

  filterOptions(leaf(provider, 'list', 'List resource providers (GET /resource_providers)'))
    .action(
      run(async (target, out, cmdFlags: any) => {
        const filter = filterOf(cmdFlags);
        const rows = await allPages<ProviderRow>(
          target,
          `query($filter: ResourceProviderFilter, $first: Int, $after: String) { resourceProviders(filter: $filter, first: $first, after: $after) { nodes { ${PROVIDER_SELECTION} } pageInfo { hasNextPage endCursor } } }`,
          { filter },
          (d) => d.resourceProviders,
        );
        return formatList(PROVIDER_FIELDS, rows.map(providerCells), out);
      }),
    );

  leaf(provider, 'show', 'Show resource provider details (GET /resource_providers/{uuid})')
    .argument('<uuid>', 'UUID of the resource provider')
    .option('--allocations', 'include the allocations of the provider resources')
    .action(
      run(async (target, out, uuid: string, cmdFlags: any) => {
        type Shown = ProviderRow & { allocations?: { consumer: { uuid: string; generation: number }; resources: { resourceClass: string; amount: number }[] }[] };
        const rp = await providerOrFail<Shown>(target, uuid, `${PROVIDER_SELECTION} ${cmdFlags.allocations ? 'allocations { consumer { uuid generation } resources { resourceClass amount } }' : ''}`);
        if (!cmdFlags.allocations) return formatOne(PROVIDER_FIELDS, providerCells(rp), out);
        const allocations: Record<string, Cell> = {};
        for (const a of rp.allocations!) allocations[a.consumer.uuid] = { resources: Object.fromEntries(a.resources.map((r) => [r.resourceClass, r.amount])), consumer_generation: a.consumer.generation };
        return formatOne([...PROVIDER_FIELDS, 'allocations'], [...providerCells(rp), allocations], out);
      }),
    );

  const INVENTORY_FIELDS = ['allocation_ratio', 'min_unit', 'max_unit', 'reserved', 'step_size', 'total', 'used'];
  const INVENTORY_SELECTION = 'resourceClass allocationRatio minUnit maxUnit reserved stepSize total used';
  type InventoryRow = { resourceClass: string; allocationRatio: number; minUnit: number; maxUnit: number; reserved: number; stepSize: number; total: number; used: number };
  const inventoryCells = (i: InventoryRow): Cell[] => [new PyFloat(i.allocationRatio), i.minUnit, i.maxUnit, i.reserved, i.stepSize, i.total, i.used];
  const inventory = provider.command('inventory').description("a provider's inventories");
  leaf(inventory, 'list', 'List inventories for a given resource provider')
    .argument('<uuid>', 'UUID of the resource provider')
    .action(
      run(async (target, out, uuid: string) => {
        // GET .../inventories repeats its 404 text, and openstack prints both.
        const rp = await providerOrFail<{ inventories: InventoryRow[] }>(target, uuid, `inventories { ${INVENTORY_SELECTION} }`, (e) => `${e} : ${e}`);
        return formatList(['resource_class', ...INVENTORY_FIELDS], rp.inventories.map((i) => [i.resourceClass, ...inventoryCells(i)]), out);
      }),
    );
  leaf(inventory, 'show', 'Show the inventory of one resource class for a given resource provider')
    .argument('<uuid>', 'UUID of the resource provider')
    .argument('<resource_class>', 'a resource class, e.g. VCPU')
    .action(
      run(async (target, out, uuid: string, resourceClass: string) => {
        const rp = await providerOrFail<{ inventories: InventoryRow[] }>(target, uuid, `inventories { ${INVENTORY_SELECTION} }`);
        const found = rp.inventories.find((i) => i.resourceClass === resourceClass);
        if (!found) throw new CommandFailed(`No inventory of class ${resourceClass} for ${uuid} (HTTP 404)`);
        return formatOne(INVENTORY_FIELDS, inventoryCells(found), out);
      }),
    );

  leaf(provider.command('trait').description("a provider's traits"), 'list', 'List the traits of a resource provider')
    .argument('<uuid>', 'UUID of the resource provider')
    .action(
      run(async (target, out, uuid: string) => {
        const rp = await providerOrFail<{ traits: string[] }>(target, uuid, 'traits');
        return formatList(['name'], rp.traits.map((t) => [t]), out);
      }),
    );

  leaf(provider.command('aggregate').description("a provider's aggregates"), 'list', 'List the aggregates of a resource provider')
    .argument('<uuid>', 'UUID of the resource provider')
    .action(
      run(async (target, out, uuid: string) => {
        const rp = await providerOrFail<{ aggregates: string[] }>(target, uuid, 'aggregates');
        return formatList(['uuid'], rp.aggregates.map((a) => [a]), out);
      }),
    );

  leaf(provider.command('usage').description("a provider's usages"), 'show', 'Show resource usages per class for a given resource provider')
    .argument('<uuid>', 'UUID of the resource provider')
    .action(
      run(async (target, out, uuid: string) => {
        const rp = await providerOrFail<{ usages: { resourceClass: string; used: number }[] }>(target, uuid, 'usages { resourceClass used }');
        return formatList(['resource_class', 'usage'], rp.usages.map((u) => [u.resourceClass, u.used]), out);
      }),
    );

  leaf(provider.command('allocation').description("a consumer's allocations"), 'show', 'Show resource allocations for a given consumer')
    .argument('<uuid>', 'UUID of the consumer')
    .action(
      run(async (target, out, uuid: string) => {
        type Consumer = { projectId: string; userId: string; consumerType: string; allocations: { provider: { uuid: string; generation: number }; resources: { resourceClass: string; amount: number }[] }[] };
        const data = await request<{ consumer: Consumer | null }>(
          target,
          'query($uuid: UUID!) { consumer(uuid: $uuid) { projectId userId consumerType allocations { provider { uuid generation } resources { resourceClass amount } } } }',
          { uuid },
        );
        const c = data.consumer;
        const rows: Cell[][] = (c?.allocations ?? []).map((a) => [a.provider.uuid, a.provider.generation, Object.fromEntries(a.resources.map((r) => [r.resourceClass, r.amount])), c!.projectId, c!.userId, c!.consumerType]);
        return formatList(['resource_provider', 'generation', 'resources', 'project_id', 'user_id', 'consumer_type'], rows, out);
      }),
    );

  leaf(resource.command('usage').description('usages of a project'), 'show', 'Show resource usages of a project (and optionally a user), per consumer type (GET /usages)')
    .argument('<project_id>', 'ID of the project')
    .option('--user-id <user_id>', 'ID of the user')
    .action(
      run(async (target, out, projectId: string, cmdFlags: any) => {
        const data = await request<{ usageTotals: { key: string; consumerCount: number; resources: { resourceClass: string; amount: number }[] }[] }>(
          target,
          'query($projectId: String, $userId: String) { usageTotals(groupBy: CONSUMER_TYPE, projectId: $projectId, userId: $userId) { key consumerCount resources { resourceClass amount } } }',
          { projectId, userId: cmdFlags.userId ?? null },
        );
        const rows: Cell[][] = data.usageTotals.map((t) => [t.key, { ...Object.fromEntries(t.resources.map((r) => [r.resourceClass, r.amount])), consumer_count: t.consumerCount }]);
        return formatList(['resource_class', 'usage'], rows, out);
      }),
    );

  leaf(program.command('trait'), 'list', 'List traits (GET /traits)')
    .option('--name <name>', 'startswith:PREFIX or in:NAME,NAME')
    .option('--associated', 'only traits some resource provider has')
    .action(
      run(async (target, out, cmdFlags: any) => {
        const filter: Record<string, unknown> = {};
        const name: string | undefined = cmdFlags.name;
        if (name !== undefined) {
          if (name.startsWith('startswith:')) filter.prefix = name.slice('startswith:'.length);
          else if (name.startsWith('in:')) filter.names = name.slice(3).split(',');
          else throw new CommandFailed(`--name ${name}: must be startswith:PREFIX or in:NAME[,NAME...] (HTTP 400)`);
        }
        if (cmdFlags.associated) filter.associated = true;
        const traits = await allPages<{ name: string }>(
          target,
          'query($filter: TraitFilter, $first: Int, $after: String) { traits(filter: $filter, first: $first, after: $after) { nodes { name } pageInfo { hasNextPage endCursor } } }',
          { filter },
          (d) => d.traits,
        );
        return formatList(['name'], traits.map((t) => [t.name]), out);
      }),
    );

  candidateList(leaf(program.command('allocation').command('candidate').description('allocation candidates'), 'list', 'List allocation candidates (GET /allocation_candidates, microversion 1.39)'), run);
  addCapacityCommands(program, { leaf, run, filterOptions, filterOf });
  return program;
}

/** osc-placement's `allocation candidate list`: --group starts a numbered group; the flags after it belong to it. */
function candidateList(command: Command, run: (body: (target: Target, out: OutputOptions, cmdFlags: any) => Promise<string>) => (...args: unknown[]) => Promise<void>) {
  type Group = { resources: string[]; required: string[]; forbidden: string[]; memberOf: string[] };
  let groups: Map<string, Group>;
  let current: string;
  const reset = () => {
    groups = new Map();
    current = '';
  };
  reset();
  const group = () => {
    if (!groups.has(current)) groups.set(current, { resources: [], required: [], forbidden: [], memberOf: [] });
    return groups.get(current)!;
  };
  const into = (key: keyof Group) => (value: string) => {
    group()[key].push(value);
    return undefined;
  };
  command
    .option('--resource <resource_class>=<value>', 'an amount the providers of a candidate must serve together; may be repeated', into('resources'))
    .option('--required <required>', 'a required trait; may be repeated; a comma-separated list means any of them', into('required'))
    .option('--forbidden <forbidden>', 'a forbidden trait; may be repeated', into('forbidden'))
    .option('--member-of <member_of>', 'comma-separated aggregate UUIDs: in one of them; may be repeated (and)', into('memberOf'))
    .option('--group <group>', 'start a numbered (granular) group: the --resource, --required, --forbidden and --member-of after it belong to it and are served by one provider', (value: string) => {
      if (!/^[a-zA-Z0-9_-]{1,64}$/.test(value)) throw new CommandFailed(`--group ${value}: a group suffix is 1 to 64 letters, digits, _ or -`);
      current = value;
      groups.set(value, { resources: [], required: [], forbidden: [], memberOf: [] });
      return value;
    })
    .addOption(new Option('--group-policy <group_policy>', 'how numbered groups interact: none, or isolate (on distinct providers)').choices(['none', 'isolate']).default('none'))
    .option('--limit <limit>', 'the maximum number of allocation candidates')
    .option('--explain', 'instead of the candidates, say for each provider tree whether it is one and, if not, why')
    .option('--provider <uuid>', 'with --explain: only the tree of this provider ("why not here?")')
    .action(
      run(async (target, out, cmdFlags) => {
        const chosen = groups;
        reset();
        if (chosen.size === 0) throw new CommandFailed('At least one --resource must be specified.');
        if (cmdFlags.provider !== undefined && !cmdFlags.explain) throw new CommandFailed('--provider goes with --explain');
        if (cmdFlags.explain) return explainCandidates(target, out, chosen, cmdFlags);
        const params = new URLSearchParams();
        if (cmdFlags.limit !== undefined) params.append('limit', cmdFlags.limit);
        if ([...chosen.keys()].some((suffix) => suffix !== '')) params.append('group_policy', cmdFlags.groupPolicy);
        for (const [suffix, g] of chosen) {
          if (g.resources.length === 0) throw new CommandFailed(suffix === '' ? 'At least one --resource must be specified.' : `--resource should be provided in group ${suffix}`);
          params.append(`resources${suffix}`, g.resources.map((r) => (resourceAmount(r), r.replace('=', ':'))).join(','));
          // As osc-placement sends them: each any-of list its own in:, the other required and the forbidden traits together.
          for (const r of g.required.filter((t) => t.includes(','))) params.append(`required${suffix}`, `in:${r}`);
          const and = [...g.required.filter((t) => !t.includes(',')), ...g.forbidden.map((t) => `!${t}`)];
          if (and.length) params.append(`required${suffix}`, and.join(','));
          for (const m of g.memberOf) params.append(`member_of${suffix}`, `in:${m}`);
        }
        type Answer =
          | { __typename: 'RequestError'; status: number; message: string }
          | {
              __typename: 'Candidates';
              allocationRequests: { allocations: { provider: { uuid: string }; resources: { resourceClass: string; amount: number }[] }[] }[];
              providerSummaries: { provider: { uuid: string }; resources: { resourceClass: string; capacity: number; used: number }[]; traits: string[] }[];
            };
        const data = await request<{ placementCandidates: Answer }>(
          target,
          `query($query: String!) { placementCandidates(query: $query, microversion: "1.39") { __typename
            ... on RequestError { status message }
            ... on Candidates { allocationRequests { allocations { provider { uuid } resources { resourceClass amount } } }
                                providerSummaries { provider { uuid } resources { resourceClass capacity used } traits } } } }`,
          { query: params.toString() },
        );
        const answer = data.placementCandidates;
        if (answer.__typename === 'RequestError') throw new CommandFailed(`${answer.message} (HTTP ${answer.status})`);
        const summaries = new Map(answer.providerSummaries.map((s) => [s.provider.uuid, { resources: s.resources.map((r) => `${r.resourceClass}=${r.used}/${r.capacity}`).join(','), traits: s.traits.join(',') }]));
        const rows: Cell[][] = answer.allocationRequests.flatMap((request, i) =>
          request.allocations.map((a) => [i + 1, a.resources.map((r) => `${r.resourceClass}=${r.amount}`).join(','), a.provider.uuid, summaries.get(a.provider.uuid)!.resources, summaries.get(a.provider.uuid)!.traits]),
        );
        return formatList(['#', 'allocation', 'resource provider', 'inventory used/capacity', 'traits'], rows, out);
      }),
    );
}

/** `allocation candidate list --explain`: the same request as structured groups, one row per tree. */
async function explainCandidates(
  target: Target,
  out: OutputOptions,
  groups: Map<string, { resources: string[]; required: string[]; forbidden: string[]; memberOf: string[] }>,
  flags: { groupPolicy: string; provider?: string },
): Promise<string> {
  const request = {
    groupPolicy: [...groups.keys()].some((suffix) => suffix !== '') ? flags.groupPolicy.toUpperCase() : null,
    groups: [...groups].map(([suffix, g]) => {
      if (g.resources.length === 0) throw new CommandFailed(suffix === '' ? 'At least one --resource must be specified.' : `--resource should be provided in group ${suffix}`);
      return {
        suffix,
        resources: g.resources.map(resourceAmount),
        required: g.required.filter((t) => !t.includes(',')),
        anyOf: g.required.filter((t) => t.includes(',')).map((t) => t.split(',')),
        forbidden: g.forbidden,
        memberOf: g.memberOf.map((m) => m.split(',')),
      };
    }),
  };
  type Tree = { root: { uuid: string; name: string }; candidate: boolean; allocationRequests: number; problems: { message: string }[] };
  const query = `query($request: CandidatesRequest!, $provider: UUID, $first: Int, $after: String) {
    explainCandidates(request: $request, provider: $provider, first: $first, after: $after) {
      __typename
      ... on CandidatesExplanation { nodes { root { uuid name } candidate allocationRequests problems { message } } pageInfo { hasNextPage endCursor } }
      ... on RequestError { status message } } }`;
  const trees = await allPages<Tree>(target, query, { request, provider: flags.provider ?? null }, ({ explainCandidates: answer }) => {
    if (answer.__typename === 'RequestError') throw new CommandFailed(`${answer.message} (HTTP ${answer.status})`);
    return answer;
  });
  const rows: Cell[][] = trees.map((t) => [t.root.name, t.root.uuid, t.candidate, t.allocationRequests, t.problems.map((p) => p.message).join('; ')]);
  return formatList(['root', 'root_uuid', 'candidate', 'allocation_requests', 'why_not'], rows, out);
}

export interface Io {
  out: (text: string) => void;
  err: (text: string) => void;
}

const STDIO: Io = { out: (text) => process.stdout.write(text), err: (text) => process.stderr.write(text) };

/** Runs one read command; the exit code: 0, or 1 for a usage error or a failed command. */
export async function runOscCommand(argv: string[], defaultDb: string, io: Io = STDIO): Promise<number> {
  const program = oscProgram(defaultDb, io);
  try {
    await program.parseAsync(argv, { from: 'user' });
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode;
    if (error instanceof CommandFailed || error instanceof ClientError || error instanceof FormatError) {
      io.err(`${error.message}\n`);
      return 1;
    }
    throw error;
  }
}
