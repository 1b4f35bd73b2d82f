// Expected failures of domain operations: plain classes, no GraphQL. Services throw them; the GraphQL
// layer maps them: a DomainError becomes union data of a mutation (common/mutation.ts), a
// RequestRefused a top-level error or RequestError data (common/refusal.graphql.ts).

export interface Issue {
  path: string;
  message: string;
  /** Placement's own words for this problem, where its REST API names it (the reason of its 400). */
  placement?: string;
}

export abstract class DomainError extends Error {
  abstract readonly typename: string;
  /** Placement's error code for the same failure. */
  code = 'placement.undefined_code';
  /** Placement's own words for the same failure, where they differ from the message (its REST API's text). */
  placement?: string;
  /** The refusal of a live Placement this one stands for (gateway mode): its status and its own text. */
  upstream?: { status: number; text: string };
}

export class NotFound extends DomainError {
  readonly typename = 'NotFound';
  constructor(
    readonly kind: string,
    readonly key: string,
    message = `No ${kind} with ${key} was found.`,
  ) {
    super(message);
  }
}

export class DuplicateName extends DomainError {
  readonly typename = 'DuplicateName';
  code = 'placement.duplicate_name';
  constructor(
    readonly field: string,
    readonly value: string,
    message: string,
  ) {
    super(message);
  }
}

export class GenerationConflict extends DomainError {
  readonly typename = 'GenerationConflict';
  code = 'placement.concurrent_update';
  constructor(
    readonly field: string,
    readonly expected: number | null,
    readonly actual: number | null,
    message: string,
    placement?: string,
  ) {
    super(message);
    this.placement = placement;
  }
}

export class InUse extends DomainError {
  readonly typename = 'InUse';
  constructor(message: string, code = 'placement.undefined_code') {
    super(message);
    this.code = code;
  }
}

export class CapacityExceeded extends DomainError {
  readonly typename = 'CapacityExceeded';
  constructor(
    readonly field: string,
    readonly providerUuid: string,
    readonly resourceClass: string,
    readonly requested: number,
    readonly used: number,
    readonly capacity: number,
    message: string,
    placement?: string,
  ) {
    super(message);
    this.placement = placement;
  }
}

export class InvalidInput extends DomainError {
  readonly typename = 'InvalidInput';
  constructor(readonly issues: Issue[]) {
    super(issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join('; '));
  }
}

/**
 * Placement refuses this request: its HTTP status (400 bad input, 404 unknown object, 406 microversion)
 * and its message. The one refusal of the domain, for reads and searches alike: the GraphQL layer gives it
 * as a top-level error, or as `RequestError` data where a field's result has that member
 * (common/refusal.graphql.ts); the REST API as Placement's error body. A refusal is an answer, not a
 * fault: no stack trace is captured (it would only cost, on requests that must stay cheap).
 */
export class RequestRefused extends Error {
  constructor(
    message: string,
    readonly status = 400,
    /** Placement's text as it writes it in its REST answer's detail (the message may be whitespace-collapsed). */
    readonly detail = message,
    /** Placement's error code for this refusal, where it gives one. */
    readonly code = 'placement.undefined_code',
  ) {
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(message);
    Error.stackTraceLimit = limit;
  }
}

/** Throws InvalidInput when any issue was found. */
export function assertNoIssues(issues: Issue[]) {
  if (issues.length > 0) throw new InvalidInput(issues);
}

/** The service a change belongs to could not be reached or failed: nothing was changed; the caller may retry. */
export class UpstreamUnavailable extends Error {}

/**
 * A change this server cannot make where it stands: in gateway mode, data that Nova, Glance or Ironic
 * own while they are mirrored, or that would be lost at the next refresh.
 */
export class NotAvailableHere extends Error {
  constructor(
    message: string,
    /** compute, image or baremetal: the service to make the change in; absent when it is Placement's own. */
    readonly service?: string,
  ) {
    super(message);
  }
}
