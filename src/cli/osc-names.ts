// The first words of osc-placement's commands and capacity's (src/cli/), known without loading them.
export const OSC_COMMANDS = ['resource', 'trait', 'allocation', 'capacity'];
