// osc-placement's commands (`openstack resource provider list`, `inventory set`, `allocation candidate
// list`...), with its names, flags, columns and microversions, against the database file or a running
// server. Those osc-placement answers from Placement's REST API send its requests to this project's
// (src/rest), so writes go through the same write port as the mutations; the other reads ask GraphQL.
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { ClientError, request, withPlacement, type Target } from './client.js';
import { addCapacityCommands } from './capacity.command.js';
import { pyRepr } from '../rules/python.js';
import { PyFloat } from '../rules/python.js';
import { FormatError, formatList, formatOne, LIST_FORMATS, ONE_FORMATS, type Cell, type Format, type OutputOptions } from './format.js';

interface CommonFlags {
  format?: Format;
  column?: string[];
  sortColumn?: string[];
  sortDescending?: boolean;
  maxWidth?: number;
  noindent?: boolean;
  prefix?: string;
  osPlacementApiVersion?: string;
  db?: string;
  url?: string;
  token?: string;
}

/** A failure the command reports on one line, exit 1 (as openstack does). */
class CommandFailed extends Error {}

const collect = (value: string, previous: string[] = []) => [...previous, value];
const list = (value: unknown) => (value ?? []) as string[];
const whole = (name: string) => (value: string) => {
  if (!/^-?\d+$/.test(value.trim())) throw new InvalidArgumentError(`${name} must be a whole number`);
  return Number(value);
};

/** What a command prints: a list (cliff's Lister), one object (ShowOne), or nothing. */
type Kind = 'list' | 'one' | 'none';

/** osc-placement 4.0.0's microversions; "1" asks for the highest it knows without a gap, 1.29. */
const SUPPORTED_VERSIONS = ['1', ...Array.from({ length: 30 }, (_, i) => `1.${i}`), '1.37', '1.38', '1.39'];
const NEGOTIATED_VERSION = '1.29';

function withCommon(command: Command, kind: Kind): Command {
  if (kind !== 'none') {
    const formats = kind === 'list' ? LIST_FORMATS : ONE_FORMATS;
    command
      .addOption(new Option('-f, --format <format>', 'output format').choices(formats).default('table'))
      .option('-c, --column <name>', 'show only this column (repeat for more)', collect);
    if (kind === 'list')
      command
        .option('--sort-column <name>', 'sort by this column (repeat for more; the first one first)', collect)
        .addOption(new Option('--sort-ascending', 'sort the column(s) in ascending order').conflicts('sortDescending'))
        .addOption(new Option('--sort-descending', 'sort the column(s) in descending order').conflicts('sortAscending'));
    command
      .option('--max-width <integer>', 'maximum table width, < 1 for none (or CLIFF_MAX_TERM_WIDTH)', whole('--max-width'))
      .option('--noindent', 'with -f json: on one line');
    if (kind === 'one') command.option('--prefix <prefix>', 'with -f shell: a prefix to every variable name', '');
  }
  return command
    .option('--os-placement-api-version <version>', 'the Placement microversion the command speaks (or OS_PLACEMENT_API_VERSION; default 1, which means 1.29, as osc-placement)')
    .option('--db <file>', 'database file (default: PLACEMENT_DB or ./placement.db)')
    .option('--url <url>', 'a running placement-gql server instead of the database file (or PLACEMENT_URL)')
    .option('--token <token>', 'bearer token for --url (or PLACEMENT_TOKEN)')
    .helpOption('-h, --help', 'show this help');
}

/** The microversion asked for, refused as openstack refuses one osc-placement does not know. */
function microversionOf(flags: CommonFlags): string {
  const asked = flags.osPlacementApiVersion ?? process.env.OS_PLACEMENT_API_VERSION ?? '1';
  if (!SUPPORTED_VERSIONS.includes(asked)) {
    const known = SUPPORTED_VERSIONS.join(', ');
    throw new CommandFailed(`placement version ${asked} is not in supported versions: ${known}\nInvalid placement client version '${asked}'. must be one of: ${known}`);
  }
  return asked === '1' ? NEGOTIATED_VERSION : asked;
}

function targetOf(flags: CommonFlags, defaultDb: string): Target {
  const url = flags.url ?? process.env.PLACEMENT_URL;
  if (flags.db && url) throw new CommandFailed('--db and --url exclude each other: read the file or ask the server');
  return { dbFile: flags.db ?? defaultDb, url, token: flags.token ?? process.env.PLACEMENT_TOKEN, microversion: microversionOf(flags) };
}

const minorOf = (target: Target) => Number(target.microversion!.split('.')[1]);
/** osc-placement's compare_version(ge('1.N')). */
const atLeast = (target: Target, minor: number) => minorOf(target) >= minor;
/** osc-placement's check_version(ge('1.N')): refused below it, before anything is asked. */
function needs(target: Target, minor: number) {
  if (!atLeast(target, minor)) throw new CommandFailed(`Operation or argument is not supported with version ${target.microversion}; requires at least version 1.${minor}`);
}

const output = (flags: CommonFlags): OutputOptions => ({
  format: flags.format ?? 'table',
  columns: list(flags.column),
  sortColumns: list(flags.sortColumn),
  sortDescending: flags.sortDescending === true,
  maxWidth: flags.maxWidth ?? (Number.parseInt(process.env.CLIFF_MAX_TERM_WIDTH ?? '0', 10) || 0),
  noIndent: flags.noindent === true,
  prefix: flags.prefix,
});

/** RC=N as osc-placement reads --resource. */
function resourceAmount(text: string): { resourceClass: string; amount: number } {
  const parts = text.split('=');
  if (parts.length !== 2 || !parts[0] || !/^\d+$/.test(parts[1])) throw new CommandFailed(`--resource ${text}: must be of the form <resource_class>=<value>, the value a whole number`);
  return { resourceClass: parts[0], amount: Number(parts[1]) };
}

/** A provider's fields at the command's microversion: the tree's from 1.14. */
const providerFields = (target: Target) => (atLeast(target, 14) ? ['uuid', 'name', 'generation', 'root_provider_uuid', 'parent_provider_uuid'] : ['uuid', 'name', 'generation']);
const PROVIDER_SELECTION = 'uuid name generation root { uuid } parent { uuid }';
type ProviderRow = { uuid: string; name: string; generation: number; root: { uuid: string }; parent: { uuid: string } | null };
const providerCells = (target: Target, p: ProviderRow): Cell[] => [p.uuid, p.name, p.generation, p.root.uuid, p.parent?.uuid ?? null].slice(0, providerFields(target).length);
/** A provider as Placement's REST API gives it, in the same fields. */
const restProviderCells = (target: Target, p: Record<string, Cell>): Cell[] => providerFields(target).map((f) => (f in p ? p[f] : ''));

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

/** osc-placement's inventory fields, in its order, with the Python type each --FIELD takes. */
const INVENTORY_FIELDS = ['allocation_ratio', 'min_unit', 'max_unit', 'reserved', 'step_size', 'total'] as const;
type InventoryField = (typeof INVENTORY_FIELDS)[number];
const isFloatField = (field: string) => field === 'allocation_ratio';

/** Python's int() or float() of a flag's text, refused with Python's words. */
function pyNumber(field: string, text: string): number {
  const trimmed = text.trim();
  if (isFloatField(field)) {
    if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(trimmed)) throw new CommandFailed(`could not convert string to float: ${pyRepr(text)}`);
    return Number(trimmed);
  }
  if (!/^[-+]?\d+$/.test(trimmed)) throw new CommandFailed(`invalid literal for int() with base 10: ${pyRepr(text)}`);
  return Number(trimmed);
}

/** osc-placement's parse_resource_argument: CLASS=VALUE or CLASS:FIELD=VALUE. */
function inventoryArgument(text: string): { resourceClass: string; field: InventoryField; value: number } {
  const parts = text.split('=');
  if (parts.length !== 2) throw new CommandFailed('Resource argument must have "name=value" format');
  const [name, value] = parts;
  const names = name.split(':');
  if (names.length > 2) throw new CommandFailed('Resource argument can contain only one colon');
  const [resourceClass, field = 'total'] = names;
  if (!resourceClass || !field || !value) throw new CommandFailed('Name, field and value must be not empty');
  if (!(INVENTORY_FIELDS as readonly string[]).includes(field)) throw new CommandFailed(`Unknown inventory field ${field}`);
  return { resourceClass, field: field as InventoryField, value: pyNumber(field, value) };
}

/** One inventory record of Placement's answer as osc-placement's row: missing fields empty, the ratio a float. */
const inventoryRow = (record: Record<string, unknown>, fields: readonly string[]): Cell[] =>
  fields.map((f) => (!(f in record) ? '' : isFloatField(f) ? new PyFloat(record[f] as number) : (record[f] as Cell)));

/** The program's commands, printing through io. */
export function oscProgram(defaultDb: string, io: Io): Command {
  const write = io.out;
  const program = new Command('placement-gql')
    .description('osc-placement commands')
    .exitOverride()
    .configureOutput({
      writeOut: write,
      writeErr: io.err,
      outputError: (text, writeErr) => writeErr(`placement-gql: ${text.replace(/^error: /, '')}`),
    })
    .showHelpAfterError("See the command's --help.");

  const leaf = (parent: Command, name: string, description: string, kind: Kind = 'list') => withCommon(parent.command(name).description(description), kind);
  const run =
    <A extends unknown[]>(body: (target: Target, out: OutputOptions, ...args: A) => Promise<string>) =>
    async (...args: unknown[]) => {
      const command = args.at(-1) as Command;
      const flags = command.opts() as CommonFlags;
      write(await body(targetOf(flags, defaultDb), output(flags), ...(args.slice(0, -1) as A)));
    };

  const resource = program.command('resource').description('resource providers, classes and usages');
  const provider = resource.command('provider').description('resource providers');

  filterOptions(leaf(provider, 'list', 'List resource providers (GET /resource_providers)')).action(
    run(async (target, out, flags: any) => {
      // As osc-placement builds the query: each value as given, so `!` and `in:` reach Placement, which judges them.
      const params = new URLSearchParams();
      if (flags.name) params.append('name', flags.name);
      if (flags.uuid) params.append('uuid', flags.uuid);
      if (list(flags.resource).length) {
        needs(target, 4);
        params.append('resources', list(flags.resource).map((r) => r.replace('=', ':')).join(','));
      }
      if (flags.inTree) (needs(target, 14), params.append('in_tree', flags.inTree));
      const required = list(flags.required);
      if (required.length) {
        needs(target, 18);
        if (required.some((r) => r.includes(','))) needs(target, 39);
      }
      if (list(flags.forbidden).length) needs(target, 22);
      for (const r of requiredParams(required, list(flags.forbidden))) params.append('required', r);
      if (list(flags.memberOf).length) needs(target, 3);
      for (const m of list(flags.memberOf)) params.append('member_of', `in:${m}`);
      const query = params.toString();
      const answer = await withPlacement(target, (call) => call('GET', `/resource_providers${query ? `?${query}` : ''}`));
      return formatList(providerFields(target), answer.json.resource_providers.map((p: Record<string, Cell>) => restProviderCells(target, p)), out);
    }),
  );

  leaf(provider, 'show', 'Show resource provider details (GET /resource_providers/{uuid})', 'one')
    .argument('<uuid>', 'UUID of the resource provider')
    .option('--allocations', 'include the allocations of the provider resources')
    .action(
      run(async (target, out, uuid: string, cmdFlags: any) => {
        type Shown = ProviderRow & { allocations?: { consumer: { uuid: string; generation: number }; resources: { resourceClass: string; amount: number }[] }[] };
        const rp = await providerOrFail<Shown>(target, uuid, `${PROVIDER_SELECTION} ${cmdFlags.allocations ? 'allocations { consumer { uuid generation } resources { resourceClass amount } }' : ''}`);
        if (!cmdFlags.allocations) return formatOne(providerFields(target), providerCells(target, rp), out);
        const allocations: Record<string, Cell> = {};
        for (const a of rp.allocations!) allocations[a.consumer.uuid] = { resources: Object.fromEntries(a.resources.map((r) => [r.resourceClass, r.amount])), consumer_generation: a.consumer.generation };
        return formatOne([...providerFields(target), 'allocations'], [...providerCells(target, rp), allocations], out);
      }),
    );

  leaf(provider, 'create', 'Create a new resource provider (POST /resource_providers)', 'one')
    .argument('<name>', 'Name of the resource provider')
    .option('--uuid <uuid>', 'UUID of the resource provider')
    .option('--parent-provider <parent_provider>', 'UUID of the parent provider; omit for no parent (1.14)')
    .action(
      run(async (target, out, name: string, flags: any) => {
        const body: Record<string, string> = { name };
        if (flags.uuid) body.uuid = flags.uuid;
        if (flags.parentProvider) (needs(target, 14), (body.parent_provider_uuid = flags.parentProvider));
        const created = await withPlacement(target, async (call) => {
          const answer = await call('POST', '/resource_providers', body);
          return (await call('GET', `/resource_providers/${answer.location!.split('/').at(-1)}`)).json;
        });
        return formatOne(providerFields(target), restProviderCells(target, created), out);
      }),
    );

  leaf(provider, 'set', 'Update an existing resource provider (PUT /resource_providers/{uuid})', 'one')
    .argument('<uuid>', 'UUID of the resource provider')
    .requiredOption('--name <name>', 'A new name of the resource provider')
    .option('--parent-provider <parent_provider>', 'UUID of the parent provider, if it has none yet (1.14)')
    .action(
      run(async (target, out, uuid: string, flags: any) => {
        const body: Record<string, string> = { name: flags.name };
        if (flags.parentProvider) (needs(target, 14), (body.parent_provider_uuid = flags.parentProvider));
        const updated = await withPlacement(target, async (call) => (await call('PUT', `/resource_providers/${uuid}`, body)).json);
        return formatOne(providerFields(target), restProviderCells(target, updated), out);
      }),
    );

  leaf(provider, 'delete', 'Delete a resource provider (DELETE /resource_providers/{uuid})', 'none')
    .argument('<uuid>', 'UUID of the resource provider')
    .action(run(async (target, _out, uuid: string) => (await withPlacement(target, (call) => call('DELETE', `/resource_providers/${uuid}`)), '')));

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
        return formatList(['resource_class', ...INVENTORY_FIELDS, 'used'], rp.inventories.map((i) => [i.resourceClass, ...inventoryCells(i)]), out);
      }),
    );
  leaf(inventory, 'show', 'Show the inventory of one resource class for a given resource provider', 'one')
    .argument('<uuid>', 'UUID of the resource provider')
    .argument('<resource_class>', 'a resource class, e.g. VCPU')
    .action(
      run(async (target, out, uuid: string, resourceClass: string) => {
        const rp = await providerOrFail<{ inventories: InventoryRow[] }>(target, uuid, `inventories { ${INVENTORY_SELECTION} }`);
        const found = rp.inventories.find((i) => i.resourceClass === resourceClass);
        if (!found) throw new CommandFailed(`No inventory of class ${resourceClass} for ${uuid} (HTTP 404)`);
        return formatOne([...INVENTORY_FIELDS, 'used'], inventoryCells(found), out);
      }),
    );
  leaf(inventory, 'set', "Replace the inventories of a provider (or, with --amend, change some): PUT .../inventories")
    .argument('<uuid>', 'UUID of the resource provider (of the aggregate with --aggregate)')
    .option('--resource <resource_class>=<value>', 'CLASS=TOTAL or CLASS:FIELD=VALUE (fields: allocation_ratio, min_unit, max_unit, reserved, step_size, total); may be repeated', collect)
    .option('--aggregate', 'the uuid is an aggregate: set the inventories of every provider in it (1.3)')
    .option('--amend', 'change the classes and fields given, keep the others')
    .option('--dry-run', 'print the inventories that would be set, set nothing')
    .action(
      run(async (target, out, uuid: string, flags: any) => {
        const changes = list(flags.resource).map(inventoryArgument);
        const fields = ['resource_class', ...INVENTORY_FIELDS];
        const rows = await withPlacement(target, async (call) => {
          let providers: { uuid: string; generation: number }[];
          if (flags.aggregate) {
            needs(target, 3);
            providers = (await call('GET', `/resource_providers?${new URLSearchParams({ member_of: uuid })}`)).json.resource_providers;
            if (providers.length === 0) throw new CommandFailed(`No resource providers found in aggregate with uuid ${uuid}.`);
          } else providers = [(await call('GET', `/resource_providers/${uuid}`)).json];
          const rows: Cell[][] = [];
          const failures: string[] = [];
          for (const rp of providers) {
            const path = `/resource_providers/${rp.uuid}/inventories`;
            const payload = flags.amend ? (await call('GET', path)).json : { inventories: {} as Record<string, Record<string, number>>, resource_provider_generation: rp.generation };
            for (const c of changes) (payload.inventories[c.resourceClass] ??= {})[c.field] = c.value;
            let answer: { inventories: Record<string, Record<string, unknown>> };
            try {
              answer = flags.dryRun ? payload : (await call('PUT', path, payload)).json;
            } catch (error) {
              if (!flags.aggregate) throw error;
              failures.push(`Failed to set inventory for resource provider ${rp.uuid}: ${(error as Error).message}.`);
              continue;
            }
            for (const [resourceClass, record] of Object.entries(answer.inventories))
              rows.push([...(flags.aggregate ? [rp.uuid] : []), resourceClass, ...inventoryRow(record, INVENTORY_FIELDS)]);
          }
          if (failures.length) throw new CommandFailed(`${failures.join('\n')}\nFailed to set inventory for ${failures.length} of ${providers.length} resource providers.`);
          return rows;
        });
        return formatList(flags.aggregate ? ['resource_provider', ...fields] : fields, rows, out);
      }),
    );
  const inventoryClass = leaf(inventory.command('class').description("one class of a provider's inventory"), 'set', 'Replace the inventory of one class of a provider (PUT .../inventories/{class})', 'one')
    .argument('<uuid>', 'UUID of the resource provider')
    .argument('<class>', 'a resource class, e.g. VCPU');
  for (const field of INVENTORY_FIELDS) {
    const option = new Option(`--${field} <${field}>`, field === 'total' ? 'the amount the provider has' : `the inventory's ${field}`);
    inventoryClass.addOption(field === 'total' ? option.makeOptionMandatory() : option);
  }
  inventoryClass.action(
    run(async (target, out, uuid: string, resourceClass: string, flags: any) => {
      const values: Record<string, number> = {};
      for (const field of INVENTORY_FIELDS) {
        const text = flags[field];
        if (text !== undefined) values[field] = pyNumber(field, text);
      }
      const record = await withPlacement(target, async (call) => {
        const rp = (await call('GET', `/resource_providers/${uuid}`)).json;
        return (await call('PUT', `/resource_providers/${uuid}/inventories/${encodeURIComponent(resourceClass)}`, { resource_provider_generation: rp.generation, ...values })).json;
      });
      return formatOne([...INVENTORY_FIELDS], inventoryRow(record, INVENTORY_FIELDS), out);
    }),
  );
  leaf(inventory, 'delete', "Delete a provider's inventory of one class (--resource-class), or all of it (1.5)", 'none')
    .argument('<uuid>', 'UUID of the resource provider')
    .option('--resource-class <resource_class>', 'the class whose inventory goes; without it, all inventories (1.5)')
    .action(
      run(async (target, _out, uuid: string, flags: any) => {
        if (flags.resourceClass === undefined && !atLeast(target, 5)) throw new CommandFailed('the following arguments are required: --resource-class');
        const path = `/resource_providers/${uuid}/inventories${flags.resourceClass === undefined ? '' : `/${encodeURIComponent(flags.resourceClass)}`}`;
        await withPlacement(target, (call) => call('DELETE', path));
        return '';
      }),
    );

  const providerTrait = provider.command('trait').description("a provider's traits");
  leaf(providerTrait, 'list', 'List the traits of a resource provider (1.6)')
    .argument('<uuid>', 'UUID of the resource provider')
    .action(
      run(async (target, out, uuid: string) => {
        needs(target, 6);
        const rp = await providerOrFail<{ traits: string[] }>(target, uuid, 'traits');
        return formatList(['name'], rp.traits.map((t) => [t]), out);
      }),
    );
  leaf(providerTrait, 'set', "Replace a provider's traits with those given (1.6)")
    .argument('<uuid>', 'UUID of the resource provider')
    .option('--trait <trait>', 'a trait; may be repeated (none: no traits)', collect)
    .action(
      run(async (target, out, uuid: string, flags: any) => {
        needs(target, 6);
        const traits = await withPlacement(target, async (call) => {
          const rp = (await call('GET', `/resource_providers/${uuid}`)).json;
          return (await call('PUT', `/resource_providers/${uuid}/traits`, { resource_provider_generation: rp.generation, traits: list(flags.trait) })).json.traits as string[];
        });
        return formatList(['name'], traits.map((t) => [t]), out);
      }),
    );
  leaf(providerTrait, 'delete', 'Remove every trait of a provider (1.6)', 'none')
    .argument('<uuid>', 'UUID of the resource provider')
    .action(
      run(async (target, _out, uuid: string) => {
        needs(target, 6);
        await withPlacement(target, (call) => call('DELETE', `/resource_providers/${uuid}/traits`));
        return '';
      }),
    );

  const providerAggregate = provider.command('aggregate').description("a provider's aggregates");
  leaf(providerAggregate, 'list', 'List the aggregates of a resource provider (1.1)')
    .argument('<uuid>', 'UUID of the resource provider')
    .action(
      run(async (target, out, uuid: string) => {
        needs(target, 1);
        const rp = await providerOrFail<{ aggregates: string[] }>(target, uuid, 'aggregates');
        return formatList(['uuid'], rp.aggregates.map((a) => [a]), out);
      }),
    );
  leaf(providerAggregate, 'set', "Replace a provider's aggregates with those given (1.1; --generation from 1.19)")
    .argument('<uuid>', 'UUID of the resource provider')
    .option('--aggregate <aggregate_uuid>', 'an aggregate; may be repeated (none: no aggregates)', collect)
    .option('--generation <resource_provider_generation>', "the provider's generation (required from 1.19)", whole('--generation'))
    .action(
      run(async (target, out, uuid: string, flags: any) => {
        needs(target, 1);
        const aggregates = list(flags.aggregate);
        if (flags.generation !== undefined) needs(target, 19);
        let body: unknown;
        if (!atLeast(target, 19)) body = aggregates;
        else if (flags.generation !== undefined) body = { aggregates, resource_provider_generation: flags.generation };
        else throw new CommandFailed('A generation must be specified.');
        const answer = await withPlacement(target, (call) => call('PUT', `/resource_providers/${uuid}/aggregates`, body));
        return formatList(['uuid'], (answer.json.aggregates as string[]).map((a) => [a]), out);
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

  const allocation = provider.command('allocation').description("a consumer's allocations");
  leaf(allocation, 'show', 'Show resource allocations for a given consumer (GET /allocations/{uuid})')
    .argument('<uuid>', 'UUID of the consumer')
    .action(run(async (target, out, uuid: string) => formatAllocations(target, out, await withPlacement(target, async (call) => (await call('GET', `/allocations/${uuid}`)).json))));
  leaf(allocation, 'set', "Replace a consumer's allocations with those given (PUT /allocations/{uuid}; --project-id and --user-id from 1.8, --consumer-type from 1.38)")
    .argument('<uuid>', 'UUID of the consumer')
    .option('--allocation <rp=UUID,CLASS=AMOUNT,...>', 'an allocation: the provider and amounts of its classes; may be repeated', collect)
    .option('--project-id <project_id>', 'ID of the consuming project')
    .option('--user-id <user_id>', 'ID of the consuming user')
    .option('--consumer-type <consumer_type>', 'the type of the consumer, e.g. INSTANCE')
    .action(
      run(async (target, out, uuid: string, flags: any) => {
        const missing = [atLeast(target, 8) && !flags.projectId && '--project-id', atLeast(target, 8) && !flags.userId && '--user-id', atLeast(target, 38) && !flags.consumerType && '--consumer-type'].filter(Boolean);
        if (missing.length) throw new CommandFailed(`the following arguments are required: ${missing.join(', ')}`);
        const answer = await withPlacement(target, async (call) => {
          const generations = atLeast(target, 28);
          const current = generations ? (await call('GET', `/allocations/${uuid}`)).json : null;
          const byProvider = allocationArguments(list(flags.allocation));
          if (byProvider.size === 0) throw new CommandFailed('At least one resource allocation must be specified');
          const resources = (m: Map<string, number>) => Object.fromEntries(m);
          const payload: Record<string, unknown> = {
            allocations: atLeast(target, 12)
              ? Object.fromEntries([...byProvider].map(([rp, m]) => [rp, { resources: resources(m) }]))
              : [...byProvider].map(([rp, m]) => ({ resource_provider: { uuid: rp }, resources: resources(m) })),
          };
          if (generations) payload.consumer_generation = current.consumer_generation ?? null;
          if (atLeast(target, 8)) Object.assign(payload, { project_id: flags.projectId, user_id: flags.userId });
          if (atLeast(target, 38)) payload.consumer_type = flags.consumerType;
          await call('PUT', `/allocations/${uuid}`, payload);
          return (await call('GET', `/allocations/${uuid}`)).json;
        });
        return formatAllocations(target, out, answer);
      }),
    );
  leaf(allocation, 'unset', "Remove a consumer's allocations against some providers (--provider) or of some classes (--resource-class), or all of them (1.12)")
    .argument('<consumer_uuid>', 'UUID of the consumer')
    .option('--provider <provider_uuid>', 'remove the allocations against this provider; may be repeated', collect)
    .option('--resource-class <resource_class>', 'remove the allocations of this class; may be repeated', collect)
    .action(
      run(async (target, out, uuid: string, flags: any) => {
        needs(target, 12);
        const answer = await withPlacement(target, async (call) => {
          const payload = (await call('GET', `/allocations/${uuid}`)).json;
          let allocations: Record<string, { resources: Record<string, number> }> = payload.allocations;
          const providers: string[] = list(flags.provider);
          const classes: string[] = list(flags.resourceClass);
          if (classes.length) {
            for (const rp of Object.keys(allocations).filter((rp) => !providers.length || providers.includes(rp))) {
              for (const rc of classes) delete allocations[rp].resources[rc];
              if (Object.keys(allocations[rp].resources).length === 0) delete allocations[rp];
            }
          } else if (providers.length) for (const rp of providers) delete allocations[rp];
          else allocations = {};
          if (Object.keys(allocations).length || atLeast(target, 28)) await call('PUT', `/allocations/${uuid}`, { ...payload, allocations });
          else await call('DELETE', `/allocations/${uuid}`);
          return (await call('GET', `/allocations/${uuid}`)).json;
        });
        return formatAllocations(target, out, answer, true);
      }),
    );
  leaf(allocation, 'delete', 'Delete all resource allocations for a given consumer (DELETE /allocations/{uuid})', 'none')
    .argument('<uuid>', 'UUID of the consumer')
    .action(run(async (target, _out, uuid: string) => (await withPlacement(target, (call) => call('DELETE', `/allocations/${uuid}`)), '')));

  leaf(resource.command('usage').description('usages of a project'), 'show', 'Show resource usages of a project (and optionally a user), per consumer type (GET /usages, 1.9)')
    .argument('<project_id>', 'ID of the project')
    .option('--user-id <user_id>', 'ID of the user')
    .action(
      run(async (target, out, projectId: string, cmdFlags: any) => {
        needs(target, 9);
        const data = await request<{ usageTotals: { key: string; consumerCount: number; resources: { resourceClass: string; amount: number }[] }[] }>(
          target,
          'query($projectId: String, $userId: String) { usageTotals(groupBy: CONSUMER_TYPE, projectId: $projectId, userId: $userId) { key consumerCount resources { resourceClass amount } } }',
          { projectId, userId: cmdFlags.userId ?? null },
        );
        const rows: Cell[][] = data.usageTotals.map((t) => [t.key, { ...Object.fromEntries(t.resources.map((r) => [r.resourceClass, r.amount])), consumer_count: t.consumerCount }]);
        return formatList(['resource_class', 'usage'], rows, out);
      }),
    );

  const resourceClass = resource.command('class').description('resource classes');
  leaf(resourceClass, 'list', 'List resource classes (GET /resource_classes, 1.2)').action(
    run(async (target, out) => {
      needs(target, 2);
      const answer = await withPlacement(target, (call) => call('GET', '/resource_classes'));
      return formatList(['name'], answer.json.resource_classes.map((c: { name: string }) => [c.name]), out);
    }),
  );
  leaf(resourceClass, 'show', 'Show a resource class (GET /resource_classes/{name}, 1.2)', 'one')
    .argument('<name>', 'Name of the resource class')
    .action(
      run(async (target, out, name: string) => {
        needs(target, 2);
        const answer = await withPlacement(target, (call) => call('GET', `/resource_classes/${encodeURIComponent(name)}`));
        return formatOne(['name'], [answer.json.name], out);
      }),
    );
  leaf(resourceClass, 'create', 'Create a custom resource class (POST /resource_classes, 1.2)', 'none')
    .argument('<name>', 'Name of the resource class (CUSTOM_...)')
    .action(run(async (target, _out, name: string) => (needs(target, 2), await withPlacement(target, (call) => call('POST', '/resource_classes', { name })), '')));
  leaf(resourceClass, 'set', 'Create a custom resource class, or check that it exists (PUT /resource_classes/{name}, 1.7)', 'none')
    .argument('<name>', 'Name of the resource class (CUSTOM_...)')
    .action(run(async (target, _out, name: string) => (needs(target, 7), await withPlacement(target, (call) => call('PUT', `/resource_classes/${encodeURIComponent(name)}`)), '')));
  leaf(resourceClass, 'delete', 'Delete a custom resource class (DELETE /resource_classes/{name}, 1.2)', 'none')
    .argument('<name>', 'Name of the resource class')
    .action(run(async (target, _out, name: string) => (needs(target, 2), await withPlacement(target, (call) => call('DELETE', `/resource_classes/${encodeURIComponent(name)}`)), '')));

  const trait = program.command('trait').description('traits');
  leaf(trait, 'list', 'List traits (GET /traits, 1.6)')
    .option('--name <name>', 'startswith:PREFIX or in:NAME,NAME')
    .option('--associated', 'only traits some resource provider has')
    .action(
      run(async (target, out, cmdFlags: any) => {
        needs(target, 6);
        const params = new URLSearchParams();
        if (cmdFlags.name) params.append('name', cmdFlags.name);
        if (cmdFlags.associated) params.append('associated', 'True');
        const query = params.toString();
        const answer = await withPlacement(target, (call) => call('GET', `/traits${query ? `?${query}` : ''}`));
        return formatList(['name'], (answer.json.traits as string[]).map((t) => [t]), out);
      }),
    );
  leaf(trait, 'show', 'Check that a trait exists (GET /traits/{name}, 1.6)', 'one')
    .argument('<name>', 'Name of the trait')
    .action(
      run(async (target, out, name: string) => {
        needs(target, 6);
        await withPlacement(target, (call) => call('GET', `/traits/${encodeURIComponent(name)}`));
        return formatOne(['name'], [name], out);
      }),
    );
  leaf(trait, 'create', 'Create a custom trait (PUT /traits/{name}, 1.6)', 'none')
    .argument('<name>', 'Name of the trait (CUSTOM_...)')
    .action(run(async (target, _out, name: string) => (needs(target, 6), await withPlacement(target, (call) => call('PUT', `/traits/${encodeURIComponent(name)}`)), '')));
  leaf(trait, 'delete', 'Delete a custom trait (DELETE /traits/{name}, 1.6)', 'none')
    .argument('<name>', 'Name of the trait')
    .action(run(async (target, _out, name: string) => (needs(target, 6), await withPlacement(target, (call) => call('DELETE', `/traits/${encodeURIComponent(name)}`)), '')));

  candidateList(leaf(program.command('allocation').command('candidate').description('allocation candidates'), 'list', 'List allocation candidates (GET /allocation_candidates, 1.10)'), run);
  addCapacityCommands(program, { leaf, run, filterOptions, filterOf });
  return program;
}

/**
 * A consumer's allocations (GET /allocations/{uuid}) as osc-placement prints them, with the columns of
 * the command's microversion (unset always names the project and user, as osc-placement does).
 */
function formatAllocations(target: Target, out: OutputOptions, answer: { allocations: Record<string, { generation: number; resources: Record<string, number> }>; project_id?: string; user_id?: string; consumer_type?: string }, owner = false): string {
  const columns = ['resource_provider', 'generation', 'resources', ...(owner || atLeast(target, 12) ? ['project_id', 'user_id'] : []), ...(atLeast(target, 38) ? ['consumer_type'] : [])];
  const props: Record<string, Cell> = { project_id: answer.project_id ?? '', user_id: answer.user_id ?? '', consumer_type: answer.consumer_type ?? null };
  const rows: Cell[][] = Object.entries(answer.allocations).map(([rp, a]) => columns.map((c) => (c === 'resource_provider' ? rp : c === 'generation' ? a.generation : c === 'resources' ? a.resources : props[c])));
  return formatList(columns, rows, out);
}

/** osc-placement's parse_allocations: rp=UUID,CLASS=AMOUNT,... per flag, the flags of one provider merged. */
function allocationArguments(texts: string[]): Map<string, Map<string, number>> {
  const byProvider = new Map<string, Map<string, number>>();
  for (const text of texts) {
    if (!text.includes('=') || !text.includes(',')) throw new CommandFailed('Incorrect allocation string format');
    const pairs = text.split(',').map((kv) => kv.split('='));
    const bad = pairs.findIndex((p) => p.length !== 2);
    if (bad >= 0) throw new CommandFailed(`dictionary update sequence element #${bad} has length ${pairs[bad].length}; 2 is required`);
    const parsed = new Map(pairs as [string, string][]);
    const rp = parsed.get('rp');
    if (rp === undefined) throw new CommandFailed('Resource provider parameter is required for allocation string');
    const resources = byProvider.get(rp) ?? new Map<string, number>();
    for (const [rc, value] of parsed) {
      if (rc === 'rp') continue;
      const amount = pyNumber('amount', value);
      if (resources.has(rc) && resources.get(rc) !== amount) throw new CommandFailed(`Conflict detected for resource provider ${rp} resource class ${rc}`);
      resources.set(rc, amount);
    }
    byProvider.set(rp, resources);
  }
  return byProvider;
}

/** osc-placement's get_required_query_param_from_args: each any-of list its own in:, the other required and the forbidden traits together. */
function requiredParams(required: string[], forbidden: string[]): string[] {
  const and = [...required.filter((t) => !t.includes(',')), ...forbidden.map((t) => `!${t}`)];
  return [...required.filter((t) => t.includes(',')).map((t) => `in:${t}`), ...(and.length ? [and.join(',')] : [])];
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
        needs(target, 10);
        const params = new URLSearchParams();
        if (cmdFlags.limit !== undefined) (needs(target, 16), params.append('limit', cmdFlags.limit));
        if ([...chosen.keys()].some((suffix) => suffix !== '')) (needs(target, 25), params.append('group_policy', cmdFlags.groupPolicy));
        for (const [suffix, g] of chosen) {
          if (g.resources.length === 0) throw new CommandFailed(suffix === '' ? 'At least one --resource must be specified.' : `--resource should be provided in group ${suffix}`);
          params.append(`resources${suffix}`, g.resources.map((r) => (resourceAmount(r), r.replace('=', ':'))).join(','));
          if (g.required.length) {
            needs(target, 17);
            if (g.required.some((r) => r.includes(','))) needs(target, 39);
          }
          if (g.forbidden.length) needs(target, 22);
          for (const r of requiredParams(g.required, g.forbidden)) params.append(`required${suffix}`, r);
          if (g.memberOf.length) needs(target, 21);
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
          `query($query: String!, $microversion: String!) { placementCandidates(query: $query, microversion: $microversion) { __typename
            ... on RequestError { status message }
            ... on Candidates { allocationRequests { allocations { provider { uuid } resources { resourceClass amount } } }
                                providerSummaries { provider { uuid } resources { resourceClass capacity used } traits } } } }`,
          { query: params.toString(), microversion: target.microversion },
        );
        const answer = data.placementCandidates;
        if (answer.__typename === 'RequestError') throw new CommandFailed(`${answer.message} (HTTP ${answer.status})`);
        const summaries = new Map(answer.providerSummaries.map((s) => [s.provider.uuid, { resources: s.resources.map((r) => `${r.resourceClass}=${r.used}/${r.capacity}`).join(','), traits: s.traits.join(',') }]));
        const rows: Cell[][] = answer.allocationRequests.flatMap((request, i) =>
          request.allocations.map((a) => [i + 1, a.resources.map((r) => `${r.resourceClass}=${r.amount}`).join(','), a.provider.uuid, summaries.get(a.provider.uuid)!.resources, summaries.get(a.provider.uuid)!.traits]),
        );
        // Traits are in Placement's summaries from 1.17.
        const traits = atLeast(target, 17);
        return formatList(['#', 'allocation', 'resource provider', 'inventory used/capacity', ...(traits ? ['traits'] : [])], traits ? rows : rows.map((r) => r.slice(0, 4)), out);
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
