// The capacity questions on the command line, through the same GraphQL API as the dashboard:
// `capacity show` (rollups per class, aggregate, trait, root or provider) and `capacity headroom`
// (how many more instances of each flavor fit, exactly, and what capacity is stranded).
import { InvalidArgumentError, type Command } from 'commander';
import { request, type Target } from './client.js';
import { formatList, type Cell, type OutputOptions } from './format.js';

/** What the read commands' program lends these commands (osc.command.ts owns it). */
export interface ProgramTools {
  leaf: (parent: Command, name: string, description: string) => Command;
  run: <A extends unknown[]>(body: (target: Target, out: OutputOptions, ...args: A) => Promise<string>) => (...args: unknown[]) => Promise<void>;
  /** Adds the provider filter flags of `resource provider list`. */
  filterOptions: (command: Command) => Command;
  /** Those flags as a ResourceProviderFilter. */
  filterOf: (flags: Record<string, unknown>) => Record<string, unknown>;
}

/** What a rollup may be grouped by besides the resource class (CapacityGroupBy, in lower case). */
const GROUP_BY = ['aggregate', 'trait', 'root', 'provider'];
const collect = (value: string, previous: string[] = []) => [...previous, value];
const groupKey = (value: string, previous: string[] = []) => {
  if (!GROUP_BY.includes(value)) throw new InvalidArgumentError(`Allowed choices are ${GROUP_BY.join(', ')}.`);
  return [...previous, value];
};

type CapacityGroup = {
  key: { resourceClass: string | null; aggregate: string | null; trait: string | null; root: { name: string } | null; provider: { name: string } | null };
  providerCount: number;
  resources: { resourceClass: string; total: number; reserved: number; capacity: number; used: number; free: number; providerCount: number }[];
};

type HeadroomRow = {
  flavor: { name: string };
  headroom: { fits: number; atMost: number; exact: boolean; sharing: boolean; stranded: { resourceClass: string; left: number; reasons: { reason: string; amount: number }[] }[] };
};

export function addCapacityCommands(program: Command, tools: ProgramTools) {
  const capacity = program.command('capacity').description('capacity, usage and headroom');

  tools
    .filterOptions(tools.leaf(capacity, 'show', 'Capacity per resource class: total, reserved, capacity (Placement\'s formula), used and free, summed per group'))
    .option('--group-by <key>', 'group by this key as well as by resource class (aggregate, trait, root, provider); may be repeated', groupKey)
    .action(
      tools.run(async (target, out, cmdFlags: any) => {
        const keys: string[] = cmdFlags.groupBy ?? [];
        const groupBy = [...keys, 'resource_class'].map((k) => k.toUpperCase());
        const data = await request<{ capacity: CapacityGroup[] }>(
          target,
          `query($filter: ResourceProviderFilter, $groupBy: [CapacityGroupBy!]) { capacity(filter: $filter, groupBy: $groupBy) {
             key { resourceClass aggregate trait root { name } provider { name } } providerCount
             resources { resourceClass total reserved capacity used free providerCount } } }`,
          { filter: tools.filterOf(cmdFlags), groupBy },
        );
        const keyCells = (k: CapacityGroup['key']): Cell[] =>
          keys.map((key) => (key === 'aggregate' ? k.aggregate : key === 'trait' ? k.trait : key === 'root' ? (k.root?.name ?? null) : (k.provider?.name ?? null)));
        const rows: Cell[][] = data.capacity.flatMap((g) => g.resources.map((r) => [...keyCells(g.key), r.resourceClass, r.total, r.reserved, r.capacity, r.used, r.free, r.providerCount]));
        return formatList([...keys, 'resource_class', 'total', 'reserved', 'capacity', 'used', 'free', 'providers'], rows, out);
      }),
    );

  tools
    .leaf(capacity, 'headroom', 'How many more instances of each flavor fit on the free capacity of today, each flavor on its own')
    .option('--flavor <name>', 'only this flavor; may be repeated (default: every flavor)', collect)
    .option('--image <name>', "the image the instances boot from (its trait properties join the flavor's request)")
    .action(
      tools.run(async (target, out, cmdFlags: any) => {
        const data = await request<{ flavorHeadroom: HeadroomRow[] }>(
          target,
          `query($flavors: [String!], $image: String) { flavorHeadroom(flavors: $flavors, image: $image) {
             flavor { name } headroom { fits atMost exact sharing stranded { resourceClass left reasons { reason amount } } } } }`,
          { flavors: cmdFlags.flavor ?? null, image: cmdFlags.image ?? null },
        );
        const stranded = (h: HeadroomRow['headroom']) =>
          h.stranded
            .filter((s) => s.left > 0)
            .map((s) => `${s.resourceClass}=${s.left} (${s.reasons.map((r) => `${r.reason.toLowerCase()} ${r.amount}`).join(', ')})`)
            .join('; ');
        const rows: Cell[][] = data.flavorHeadroom.map(({ flavor, headroom: h }) => [flavor.name, h.fits, h.atMost, h.exact, stranded(h)]);
        return formatList(['flavor', 'fits', 'at_most', 'exact', 'stranded'], rows, out);
      }),
    );
}
