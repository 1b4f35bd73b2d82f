// One shape for every mutation: a single `input`, a result union of a payload and named errors,
// and one transaction around the service call. The resolver's input type is inferred from the
// Pothos input fields, and its result is checked against the payload type.
import type { InputFieldMap, InputShapeFromFields } from '@pothos/core';
import { builder, type InputFieldBuilder, type Types } from '../../builder.js';
import type { Context } from '../../context.js';
import { DomainError, InvalidInput } from './errors.js';
import { textProblems } from '../../rules/text.js';
import { publish, type ChangeEvent } from '../../server/events.js';
import { InvalidInputError, typenameOf } from './errors.graphql.js';
import { GraphQLError } from 'graphql';
import type { Gateway } from '../../upstream/gateway.js';
import { UpstreamUnavailable } from '../../upstream/write-through.js';

interface MutationOptions<Fields extends InputFieldMap, Payload, Input = InputShapeFromFields<Fields>> {
  description: string;
  /** Fields of the input object, built with the input field builder; they give the resolver's input type. */
  input: (t: InputFieldBuilder) => Fields;
  /** The success type: an object ref whose shape is what the resolver returns. */
  payload: PothosSchemaTypes.ObjectRef<Types, Payload>;
  /** The error types besides InvalidInput. */
  errors: PothosSchemaTypes.ObjectRef<Types, DomainError>[];
  /** The domain operation; it runs inside one transaction. */
  resolve: (input: Input, ctx: Context) => NoInfer<Payload>;
  /**
   * Gateway mode: the same change made in Placement, then read back into the mirror. Without it the
   * mutation is refused in gateway mode, unless `local` says it changes only this server's own data.
   */
  upstream?: (input: Input, ctx: Context, gateway: Gateway) => Promise<NoInfer<Payload>>;
  /** Changes data Placement does not hold (flavors, images): applied locally in gateway mode too. */
  local?: boolean;
  /**
   * The service that owns the data in a live cloud: when the gateway mirrors it, the mutation is
   * refused, naming the service and the command to use; when it does not, `local` applies.
   */
  owner?: { service: 'compute' | 'image' | 'baremetal'; what: string; use: string };
  /** What subscribers are told once the change is committed. */
  events?: (payload: NoInfer<Payload>, input: Input) => ChangeEvent[];
}

const capitalize = (s: string) => s[0].toUpperCase() + s.slice(1);

export function defineMutation<Fields extends InputFieldMap, Payload>(name: string, options: MutationOptions<Fields, Payload>) {
  const typeName = capitalize(name);
  const inputRef = builder.inputType(`${typeName}Input`, {
    description: `Input of ${name}.`,
    fields: options.input,
  });
  const members = [options.payload, ...new Set([...options.errors, InvalidInputError])];
  const resultRef = builder.unionType(`${typeName}Result`, {
    description: `What ${name} returns: the payload, or why nothing was changed.`,
    types: members,
    resolveType: (value) => typenameOf(value) ?? options.payload.name,
  });
  // Pothos cannot work out a field's argument and result types while Fields and Payload are still
  // type parameters (its conditional types stay unresolved), so the field below sees the input and
  // the result widened to unknown. Each call site is checked against the real types by
  // MutationOptions; the one place the input's shape is restated is marked below.
  const result: PothosSchemaTypes.UnionRef<Types, unknown> = resultRef;
  builder.mutationField(name, (t) => {
    const inputArg: PothosSchemaTypes.ArgumentRef<Types, unknown> = t.arg({ type: inputRef, required: true });
    return t.field({
      type: result,
      description: options.description,
      args: { input: inputArg },
      resolve: async (_root, args, ctx) => {
        // graphql-js has coerced `input` to the input type built from options.input above, so it has
        // the shape of those fields (the type Pothos gives the same arg at a call site).
        const input = args.input as InputShapeFromFields<Fields>;
        try {
          // Text that has no UTF-8 form (a lone surrogate from a \ud800 escape) would be stored as U+FFFD.
          const notText = textProblems(input);
          if (notText.length) throw new InvalidInput(notText);
          const gateway = ctx.gateway;
          if (gateway && options.owner) await refuseWhenMirrored(name, options.owner, gateway);
          const payload =
            gateway && !options.local
              ? await throughGateway(name, options, input, ctx, gateway)
              : ctx.db.transaction(() => options.resolve(input, ctx));
          ctx.changed();
          if (options.events) publish(ctx.feed, options.events(payload, input));
          return payload;
        } catch (error) {
          // graphql-js treats a returned Error as a failure: hand the error over as plain data.
          if (error instanceof DomainError) return { ...error, message: error.message };
          if (error instanceof UpstreamUnavailable) throw new GraphQLError(`${name}: nothing was changed. ${error.message}`, { extensions: { code: 'UPSTREAM_UNAVAILABLE' } });
          throw error;
        }
      },
    });
  });
  return resultRef;
}

const OWNER_NAMES = { compute: 'Nova', image: 'Glance', baremetal: 'Ironic' } as const;

async function refuseWhenMirrored(name: string, owner: NonNullable<MutationOptions<InputFieldMap, unknown>['owner']>, gateway: Gateway) {
  const url = await gateway.serviceUrl(owner.service);
  if (!url) return;
  throw new GraphQLError(`${name} is not available in gateway mode: ${owner.what} are mirrored from ${OWNER_NAMES[owner.service]} at ${url}; ${owner.use}`, {
    extensions: { code: 'NOT_AVAILABLE_IN_GATEWAY_MODE', service: owner.service },
  });
}

function throughGateway<Fields extends InputFieldMap, Payload>(
  name: string,
  options: MutationOptions<Fields, Payload>,
  input: InputShapeFromFields<Fields>,
  ctx: Context,
  gateway: Gateway,
): Promise<Payload> {
  if (!options.upstream) {
    throw new GraphQLError(
      `${name} is not available in gateway mode: this server mirrors Placement at ${gateway.status().url}, and the change would be lost at the next refresh. Make it in the service that owns the data.`,
      { extensions: { code: 'NOT_AVAILABLE_IN_GATEWAY_MODE' } },
    );
  }
  return options.upstream(input, ctx, gateway);
}
