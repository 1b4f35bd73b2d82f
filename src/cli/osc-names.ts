// The first words of the read commands (osc-placement's and capacity, src/cli/), known without loading them.
export const OSC_COMMANDS = ['resource', 'trait', 'allocation', 'capacity'];
