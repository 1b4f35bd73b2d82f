// GET / : the version document (handlers/root.py), which needs no token.
import { MAX_VERSION, MIN_VERSION } from '../../rules/microversion.js';
import { pyJsonDumps } from '../../rules/python-json.js';
import type { Answer, RestRequest } from '../request.js';

const DOCUMENT = pyJsonDumps({
  versions: [{ id: `v${MIN_VERSION}`, max_version: MAX_VERSION, min_version: MIN_VERSION, status: 'CURRENT', links: [{ rel: 'self', href: '' }] }],
});

export function home(request: RestRequest): Answer {
  // From 1.15 the answer says it was modified now, and is not to be cached.
  return { status: 200, body: DOCUMENT, lastModified: request.atLeast(15) ? new Date() : undefined };
}
