// An upstream failure in an operator's words: what failed, at which service, the HTTP status, what
// to check. Never a raw JavaScript or SQLite message, a stack, a piece of an answer's body or a secret.
import { ForeignOrigin } from './discipline.js';
import { AnswerRefused } from './http.js';
import { UnexpectedAnswer, UpstreamError, UpstreamUnreachable } from './placement.client.js';
import { UpstreamConfigError } from './clouds.js';
import { KeystoneAuthError } from './keystone.js';
import { PlacementDbError } from './placement-db.client.js';

/** A refusal already worded for the operator (an inconsistent answer, a database that is not this upstream's mirror). */
export class MirrorRefused extends Error {}

/** The database is not this upstream's mirror (nor empty): nothing is read into it. */
export class DatabaseRefused extends MirrorRefused {}

/** Failures this file words; anything else is a fault of the gateway itself (its details belong in the log). */
export function isExplained(error: unknown): boolean {
  return [MirrorRefused, UpstreamUnreachable, UpstreamError, UnexpectedAnswer, AnswerRefused, ForeignOrigin, UpstreamConfigError, KeystoneAuthError, PlacementDbError].some((kind) => error instanceof kind);
}

/** The operator's words for a failure of the upstream, its answers, or the gateway reading them. */
export function explainFailure(error: unknown): string {
  // Placement's database: worded where it is read (placement-db.client.ts), without the password.
  if (error instanceof MirrorRefused || error instanceof UpstreamConfigError || error instanceof PlacementDbError) return error.message;
  // Refused credentials or Keystone out of reach: its message names the user and project, never a secret.
  if (error instanceof KeystoneAuthError) return error.message;
  if (error instanceof UpstreamUnreachable) return `${error.message} (${connectionHint(error.message)})`;
  if (error instanceof UpstreamError) return answered(error);
  if (error instanceof UnexpectedAnswer) return `${error.message}: check that the URL is ${error.service}'s endpoint, and any proxy in front of it.`;
  if (error instanceof AnswerRefused) {
    return error.reason === 'too slow'
      ? `The answer from ${error.url} did not arrive whole within ${error.limit / 1000} s: check the service and the network to it (--upstream-timeout sets the limit).`
      : `The answer from ${error.url} is larger than ${Math.round(error.limit / 1024 / 1024)} MB and was refused as it arrived (--upstream-max-body sets the limit).`;
  }
  if (error instanceof ForeignOrigin) {
    return `An answer links to ${error.target}, another host than the endpoint ${error.allowed}: it was not followed, as the token goes only to the endpoints the service catalog or the flags name.`;
  }
  return 'The gateway failed on an internal error while reading or storing the upstream answers (the server log has the details).';
}

function answered(error: UpstreamError): string {
  const { service, status, method, path } = error;
  const asked = `${method} ${path}`;
  if (error.code === 'too_old') return `${error.detail}.`;
  if (status === 401) return `${service} refused the token (401) to ${asked}: check the credentials (--upstream-token, or the user, password or application credential of the cloud).`;
  if (status === 403) {
    // Placement names the policy rule; only a rule's name is shown, nothing else of the answer.
    const rule = /\b(placement:[a-z_:]+)\b/.exec(error.detail)?.[1];
    return (
      `${service} refused access (403) to ${asked}${rule ? ` (policy ${rule})` : ''}: the gateway reads every provider and consumer, ` +
      'which needs the admin role (or a role the placement policy allows for all of them).'
    );
  }
  if (status === 404) return `${service} answered 404 (not found) to ${asked}: check that the URL is ${service}'s endpoint.`;
  if (status >= 500) return `${service} answered ${status} (a server error) to ${asked}, after retries: check ${service}'s health and logs.`;
  if (status >= 300 && status < 400) return `${service} answered ${status} (a redirect) to ${asked}, which is not followed: give the endpoint the redirect leads to.`;
  return `${service} answered ${status} to ${asked}: check that the URL is ${service}'s endpoint and that it serves the microversion asked.`;
}

function connectionHint(message: string): string {
  const code = /: ([A-Z_0-9]+)$/.exec(message)?.[1] ?? '';
  if (code === 'ECONNREFUSED') return 'nothing accepts connections there: check that the service runs and the URL';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'the host name does not resolve: check the URL';
  if (code === 'ETIMEDOUT') return 'no answer in time: check the network and any firewall';
  if (code === 'ECONNRESET' || code === 'EPIPE') return 'the connection was cut: check the service and any proxy in front of it';
  if (/CERT|SELF_SIGNED|UNABLE_TO_VERIFY|ALTNAME/.test(code)) return 'its TLS certificate does not verify: a CA bundle goes in --upstream-cacert, clouds.yaml cacert or OS_CACERT';
  return 'check the URL and the network';
}
