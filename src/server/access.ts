// Bearer tokens with the roles reader and admin. Token values are never logged, echoed or quoted in an
// error: not the file's text when it is not JSON, not an entry's text when it is malformed.
import { readFileSync, statSync } from 'node:fs';
import type { Role } from '../modules/common/caller.js';

export type { Role };

export interface AccessConfig {
  /** token -> role; empty means open access (allowed on loopback only). */
  tokens: Map<string, Role>;
}

export const OPEN_ACCESS: AccessConfig = { tokens: new Map() };

export class AccessConfigError extends Error {}

const ROLES = new Set<Role>(['reader', 'admin']);

function addToken(config: AccessConfig, role: unknown, token: unknown, where: string) {
  // The role is not quoted back: an entry written the wrong way round would print its token.
  if (!ROLES.has(role as Role)) throw new AccessConfigError(`${where}: the role must be reader or admin`);
  if (typeof token !== 'string' || token.length < 16) throw new AccessConfigError(`${where}: a token must be a string of at least 16 characters`);
  config.tokens.set(token, role as Role);
}

/** Where JSON.parse stopped, as a line and column: its own message may quote the text around (a token). */
function jsonProblem(text: string, error: unknown): string {
  const at = Number(/position (\d+)/.exec(String((error as Error)?.message))?.[1]);
  if (!Number.isInteger(at)) return 'it is not valid JSON';
  const before = text.slice(0, at).split('\n');
  return `it is not valid JSON (line ${before.length}, column ${before.at(-1)!.length + 1})`;
}

/**
 * Tokens from a JSON file `{"tokens": [{"role": "admin", "token": "..."}]}` and/or the environment
 * variable PLACEMENT_TOKENS="role:token,role:token". A file that other users may read or change is
 * accepted with a warning (one line, through `warn`).
 */
export function loadAccessConfig(file: string | undefined, env: string | undefined, warn: (message: string) => void = (m) => console.error(m)): AccessConfig {
  const config: AccessConfig = { tokens: new Map() };
  if (file) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      throw new AccessConfigError(`cannot read the tokens file ${file} (${(error as NodeJS.ErrnoException).code ?? 'unreadable'})`);
    }
    let parsed: any;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      throw new AccessConfigError(`cannot read the tokens file ${file}: ${jsonProblem(text, error)}`);
    }
    if (!Array.isArray(parsed?.tokens)) throw new AccessConfigError(`${file}: expected {"tokens": [{"role": "reader"|"admin", "token": "..."}]}`);
    parsed.tokens.forEach((t: any, i: number) => addToken(config, t?.role, t?.token, `${file}: tokens.${i}`));
    const mode = statSync(file).mode & 0o777;
    if (mode & 0o077) warn(`Warning: the tokens file ${file} is open to other users (mode ${mode.toString(8).padStart(3, '0')}); restrict it with chmod 600 ${file}`);
  }
  if (env) {
    env.split(',').filter(Boolean).forEach((entry, i) => {
      const at = entry.indexOf(':');
      if (at < 0) throw new AccessConfigError(`PLACEMENT_TOKENS entry ${i + 1}: expected role:token`);
      addToken(config, entry.slice(0, at), entry.slice(at + 1), `PLACEMENT_TOKENS entry ${i + 1}`);
    });
  }
  return config;
}

/** The caller's role: from the bearer token, or admin when access is open. null = unknown token or none. */
export function roleOf(config: AccessConfig, authorization: string | null | undefined): Role | null {
  if (config.tokens.size === 0) return 'admin';
  const match = authorization?.match(/^Bearer\s+(\S+)$/i);
  return match ? (config.tokens.get(match[1]) ?? null) : null;
}

export const isLoopback = (host: string) => host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);

export const HOW_TO_CONFIGURE_TOKENS =
  'Configure bearer tokens with --tokens FILE (JSON: {"tokens": [{"role": "admin", "token": "..."}, {"role": "reader", "token": "..."}]}) ' +
  'or PLACEMENT_TOKENS="admin:TOKEN,reader:TOKEN" (tokens of at least 16 characters), or bind to 127.0.0.1.';
