// The upstream options of `serve` and `sync`, turned into a session.
import { readFileSync } from 'node:fs';
import { fixedTokenSession, type UpstreamSession } from './session.js';

/** A missing or contradictory upstream setting; the message names it. */
export class UpstreamConfigError extends Error {}

export const UPSTREAM_FLAGS = {
  upstream: { type: 'string' },
  'upstream-token': { type: 'string' },
  'upstream-cacert': { type: 'string' },
  'upstream-concurrency': { type: 'string' },
  'sync-interval': { type: 'string' },
} as const;

/** The session the flags ask for; null when no upstream is configured (standalone mode). */
export async function upstreamSession(values: Record<string, string | boolean | undefined>): Promise<UpstreamSession | null> {
  const url = values.upstream as string | undefined;
  if (!url) return null;
  const token = (values['upstream-token'] as string | undefined) ?? process.env.PLACEMENT_UPSTREAM_TOKEN;
  if (!token) throw new UpstreamConfigError('--upstream needs --upstream-token TOKEN (or PLACEMENT_UPSTREAM_TOKEN)');
  if (!/^https?:\/\/[^/]/.test(url)) throw new UpstreamConfigError(`--upstream must be an http:// or https:// URL, not '${url}'`);
  const cacert = values['upstream-cacert'] as string | undefined;
  let ca: string | undefined;
  if (cacert) {
    try {
      ca = readFileSync(cacert, 'utf8');
    } catch {
      throw new UpstreamConfigError(`--upstream-cacert: cannot read ${cacert}`);
    }
  }
  return fixedTokenSession(url, token, { ca, rejectUnauthorized: true });
}
