// What a command of the command line receives and returns (commands.ts runs them by name).
export interface CommandOptions {
  dbFile: string;
  positionals: string[];
  values: Record<string, string | boolean | undefined>;
}

/** A command: its exit status. */
export type Command = (options: CommandOptions) => Promise<number> | number;

/** A wrong command line: printed with a pointer to --help, exit status 1. */
export class UsageError extends Error {}
