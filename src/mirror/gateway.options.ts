// The upstream options of `serve` and `sync`, turned into a session (see clouds.ts for the rules).
import { homedir } from 'node:os';
import { resolveUpstreamOptions, UPSTREAM_OPTIONS, UpstreamConfigError, upstreamConcurrency, upstreamLimits, type UpstreamFlags } from '../upstream/clouds.js';
import type { GatewayOptions } from './gateway.js';
import type { UpstreamSession } from '../upstream/session.js';

export { UpstreamConfigError };

export const UPSTREAM_FLAGS = {
  ...UPSTREAM_OPTIONS,
  'sync-interval': { type: 'string' },
} as const;

/**
 * The session the flags and OS_* variables ask for; null when none is configured (standalone mode).
 * `requireFlag` (serve): only --upstream or --os-cloud turn gateway mode on, so a shell with an openrc
 * sourced still serves the standalone database instead of mirroring a cloud over it.
 */
export async function upstreamSession(values: Record<string, string | boolean | undefined>, options: { requireFlag?: boolean } = {}): Promise<UpstreamSession | null> {
  return resolveUpstreamOptions(values as UpstreamFlags, process.env, { cwd: process.cwd(), home: homedir(), requireFlag: options.requireFlag });
}

/** The gateway's options from the flags: requests in flight, the bounds of answers, --replace-db. */
export function gatewayOptions(values: Record<string, string | boolean | undefined>): GatewayOptions {
  const flags = values as UpstreamFlags;
  return { concurrency: upstreamConcurrency(flags), ...upstreamLimits(flags), replaceDb: flags['replace-db'] === true };
}
