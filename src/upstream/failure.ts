// An upstream failure in an operator's words.
import { UpstreamError, UpstreamUnreachable } from './placement.client.js';
import { UpstreamConfigError } from './options.js';
import { KeystoneAuthError } from './keystone.js';

/** The operator's words for an upstream failure; null for a failure that is not the upstream's. */
export function explainFailure(error: unknown): string | null {
  if (error instanceof UpstreamUnreachable) return error.message;
  if (error instanceof UpstreamError) {
    if (error.status === 401) return `Placement refused the token (401): check the credentials. ${error.detail}`;
    if (error.status === 403) return `Placement refused access (403): the gateway reads every provider and consumer, which needs the admin role (or a role the placement policy allows for all of them). ${error.detail}`;
    if (error.code === 'too_old') return error.detail;
    return `Placement answered ${error.status} to ${error.method} ${error.path}: ${error.detail}`;
  }
  if (error instanceof UpstreamConfigError) return error.message;
  // Refused credentials or Keystone out of reach: its message names the user and project, never a secret.
  if (error instanceof KeystoneAuthError) return error.message;
  return null;
}

