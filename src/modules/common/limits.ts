// What one request may ask and how much the server holds open: the values every layer reads (the server
// enforces them; the candidate search stops at maxCandidates).
import { DEFAULT_MAX_CANDIDATES } from '../candidates/index.js';

export interface Limits {
  /** Deepest nesting of selections. */
  maxDepth: number;
  /** Aliased fields in one document. */
  maxAliases: number;
  /** Estimated cost: every field 1, multiplied by the expected size of the lists around it. */
  maxCost: number;
  /** Largest request body in bytes. */
  maxBodyBytes: number;
  /** Most allocation requests one candidate search may build before answering truncated. */
  maxCandidates: number;
  /** Open HTTP connections, in total and from one client address (past them: 503 and 429). */
  maxConnections: number;
  maxConnectionsPerAddress: number;
  /** Open streaming answers (SSE or multipart subscriptions), in total and from one client address. */
  maxStreams: number;
  maxStreamsPerAddress: number;
}

export const DEFAULT_LIMITS: Limits = {
  maxDepth: 15,
  maxAliases: 50,
  maxCost: 200_000,
  maxBodyBytes: 1_000_000,
  maxCandidates: DEFAULT_MAX_CANDIDATES,
  maxConnections: 1_000,
  maxConnectionsPerAddress: 100,
  maxStreams: 500,
  maxStreamsPerAddress: 20,
};

