// The first words of osc-placement's read commands (src/cli/osc.command.ts), known without loading it.
export const OSC_COMMANDS = ['resource', 'trait', 'allocation'];
