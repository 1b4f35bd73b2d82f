// The one way an upstream URL is shown (startup line, logs, /health, GraphQL, error messages): its
// userinfo (user and password) left out and the values of its query parameters replaced by ***, so
// no secret written into a URL is ever printed.

/** The URL as it may be shown: `http://host:8778/placement?token=***`. */
export function redactUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    // Not a URL: whatever looks like credentials or a query goes.
    return url.replace(/[^\s/?#@]*@/g, '***@').replace(/[?#].*$/, '?***');
  }
  parsed.username = '';
  parsed.password = '';
  for (const key of new Set(parsed.searchParams.keys())) parsed.searchParams.set(key, '***');
  parsed.hash = '';
  return parsed.toString().replace(/%2A%2A%2A/g, '***').replace(/\/+$/, '');
}

/**
 * Which upstream a URL names, whatever credentials reach it: scheme, host, port and path, lower-cased
 * where URLs are case-blind, without userinfo, query or trailing slash. What the mirror records.
 */
export function upstreamIdentity(url: string): string {
  const parsed = new URL(url);
  parsed.username = '';
  parsed.password = '';
  parsed.search = '';
  parsed.hash = '';
  return parsed.toString().replace(/\/+$/, '');
}
