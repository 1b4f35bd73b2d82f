// Bearer tokens with the roles reader and admin. Token values are never logged or echoed.
import { readFileSync } from 'node:fs';
import type { Role } from '../modules/common/caller.js';

export type { Role };

export interface AccessConfig {
  /** token -> role; empty means open access (allowed on loopback only). */
  tokens: Map<string, Role>;
}

export const OPEN_ACCESS: AccessConfig = { tokens: new Map() };

export class AccessConfigError extends Error {}

const ROLES = new Set<Role>(['reader', 'admin']);

function addToken(config: AccessConfig, role: string, token: string, where: string) {
  if (!ROLES.has(role as Role)) throw new AccessConfigError(`${where}: role must be reader or admin (got ${JSON.stringify(role)})`);
  if (typeof token !== 'string' || token.length < 16) throw new AccessConfigError(`${where}: a token must be a string of at least 16 characters`);
  config.tokens.set(token, role as Role);
}

/**
 * Tokens from a JSON file `{"tokens": [{"role": "admin", "token": "..."}]}` and/or the environment
 * variable PLACEMENT_TOKENS="role:token,role:token".
 */
export function loadAccessConfig(file: string | undefined, env: string | undefined): AccessConfig {
  const config: AccessConfig = { tokens: new Map() };
  if (file) {
    let parsed: any;
    try {
      parsed = JSON.parse(readFileSync(file, 'utf8'));
    } catch (error) {
      throw new AccessConfigError(`cannot read the tokens file ${file}: ${(error as Error).message}`);
    }
    if (!Array.isArray(parsed?.tokens)) throw new AccessConfigError(`${file}: expected {"tokens": [{"role": "reader"|"admin", "token": "..."}]}`);
    parsed.tokens.forEach((t: any, i: number) => addToken(config, t?.role, t?.token, `${file}: tokens.${i}`));
  }
  if (env) {
    env.split(',').filter(Boolean).forEach((entry, i) => {
      const at = entry.indexOf(':');
      addToken(config, entry.slice(0, at), entry.slice(at + 1), `PLACEMENT_TOKENS entry ${i + 1}`);
    });
  }
  return config;
}

/** The caller's role: from the bearer token, or admin when access is open. null = unknown token or none. */
export function roleOf(config: AccessConfig, authorization: string | null): Role | null {
  if (config.tokens.size === 0) return 'admin';
  const match = authorization?.match(/^Bearer\s+(\S+)$/i);
  return match ? (config.tokens.get(match[1]) ?? null) : null;
}

export const isLoopback = (host: string) => host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);

export const HOW_TO_CONFIGURE_TOKENS =
  'Configure bearer tokens with --tokens FILE (JSON: {"tokens": [{"role": "admin", "token": "..."}, {"role": "reader", "token": "..."}]}) ' +
  'or PLACEMENT_TOKENS="admin:TOKEN,reader:TOKEN" (tokens of at least 16 characters), or bind to 127.0.0.1.';
