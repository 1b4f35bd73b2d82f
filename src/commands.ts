// Every command but serve (main.ts) and osc-placement's (src/cli/): its name and where it lives,
// loaded only when run.
import type { Command, CommandOptions } from './command.js';

const commands: Record<string, () => Promise<Command>> = {
  import: async () => (await import('./modules/snapshot/snapshot.command.js')).importCommand,
  export: async () => (await import('./modules/snapshot/snapshot.command.js')).exportCommand,
  schema: async () => (await import('./schema.command.js')).schemaCommand,
  'apply-config': async () => (await import('./modules/provider-config/provider-config.command.js')).applyConfigCommand,
  backup: async () => (await import('./db/backup.command.js')).backupCommand(false),
  restore: async () => (await import('./db/backup.command.js')).backupCommand(true),
  sync: async () => (await import('./mirror/sync.command.js')).syncCommand,
  audit: async () => (await import('./modules/audit/audit.command.js')).auditCommand,
  docs: async () => (await import('./modules/flavors/docs.command.js')).docsCommand,
};

export async function runCommand(name: string, options: CommandOptions): Promise<number> {
  const load = commands[name];
  if (!load) {
    console.error(`Unknown command ${name}; see placement-gql --help.`);
    return 1;
  }
  return (await load())(options);
}
