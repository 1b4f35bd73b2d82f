// The upstream options of `serve` and `sync`, turned into a session (see clouds.ts for the rules).
import { homedir } from 'node:os';
import { resolveUpstreamOptions, UPSTREAM_OPTIONS, UpstreamConfigError, upstreamConcurrency, upstreamLimits, type UpstreamFlags } from '../upstream/clouds.js';
import type { GatewayOptions } from './gateway.js';
import type { UpstreamSession } from '../upstream/session.js';
import { parsePlacementDbUrl, PlacementDbConfigError } from '../upstream/placement-db.client.js';
import { databaseSource } from './placement-db.source.js';
import type { PlacementSource } from './source.js';

export { UpstreamConfigError };

export const UPSTREAM_FLAGS = {
  ...UPSTREAM_OPTIONS,
  'sync-interval': { type: 'string' },
  'placement-db': { type: 'string' },
} as const;

/** The variable that may hold the --placement-db URL (so that its password is not on the command line). */
export const PLACEMENT_DB_URL_VARIABLE = 'PLACEMENT_DB_URL';

export const PLACEMENT_DB_USAGE = `Placement's database (sync, serve):
  --placement-db URL                      read the mirror from Placement's own MySQL or MariaDB database with a SELECT-only
                                          account: mysql://USER:PASSWORD@HOST:3306/placement, or placement.conf's
                                          [placement_database] connection (mysql+pymysql://...?charset=utf8; a socket with
                                          ?unix_socket=PATH); ${PLACEMENT_DB_URL_VARIABLE} may hold it instead, off the command line.
                                          Writes still go to Placement's API (--upstream or --os-cloud); without one they are refused`;

/** Writes go to Placement's API; with only the database given there is none, and a write says what to add. */
export const NO_API_FOR_WRITES =
  "writes go to Placement's API, and none is configured (the mirror reads Placement's database): add --upstream URL --upstream-token TOKEN or --os-cloud NAME beside --placement-db";

/** The session of a gateway that reads only Placement's database: no endpoint, so writes are refused with NO_API_FOR_WRITES. */
export function databaseOnlySession(shown: string): UpstreamSession {
  return {
    endpoint: async (service) => {
      if (service === 'placement') throw new UpstreamConfigError(NO_API_FOR_WRITES);
      return null;
    },
    token: async () => {
      throw new UpstreamConfigError(NO_API_FOR_WRITES);
    },
    tls: { rejectUnauthorized: true },
    describe: () => `no API (the mirror reads ${shown}; writes are refused)`,
  };
}

/** The database source --placement-db (or PLACEMENT_DB_URL) asks for; null when neither is given. */
export function placementDbSource(values: Record<string, string | boolean | undefined>, env: Record<string, string | undefined> = process.env): PlacementSource | null {
  const url = (values['placement-db'] as string | undefined) ?? env[PLACEMENT_DB_URL_VARIABLE];
  if (url === undefined || url === '') return null;
  try {
    return databaseSource(parsePlacementDbUrl(url), upstreamLimits(values as UpstreamFlags).timeoutMs);
  } catch (error) {
    if (error instanceof PlacementDbConfigError) throw new UpstreamConfigError(error.message);
    throw error;
  }
}

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
