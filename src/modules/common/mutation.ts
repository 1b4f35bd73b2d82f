// One shape for every mutation: a single `input`, a result union of a payload and named errors,
// and one transaction around the service call.
import { builder } from '../../builder.js';
import type { Context } from '../../context.js';
import { DomainError } from './errors.js';
import { publish, type ChangeEvent } from '../../server/events.js';
import { InvalidInputError } from './errors.graphql.js';
import { GraphQLError } from 'graphql';
import type { Gateway } from '../../upstream/gateway.js';
import { UpstreamUnavailable } from '../../upstream/write-through.js';

interface MutationOptions<Input, Payload> {
  description: string;
  /** Fields of the input object, built with the input field builder. */
  input: (t: any) => Record<string, any>;
  /** The success type (an object ref). */
  payload: any;
  /** The error types besides InvalidInput. */
  errors: any[];
  /** The domain operation; it runs inside one transaction. */
  resolve: (input: Input, ctx: Context) => Payload;
  /**
   * Gateway mode: the same change made in Placement, then read back into the mirror. Without it the
   * mutation is refused in gateway mode, unless `local` says it changes only this server's own data.
   */
  upstream?: (input: Input, ctx: Context, gateway: Gateway) => Promise<Payload>;
  /** Changes data Placement does not hold (flavors, images): applied locally in gateway mode too. */
  local?: boolean;
  /**
   * The service that owns the data in a live cloud: when the gateway mirrors it, the mutation is
   * refused, naming the service and the command to use; when it does not, `local` applies.
   */
  owner?: { service: 'compute' | 'image' | 'baremetal'; what: string; use: string };
  /** What subscribers are told once the change is committed. */
  events?: (payload: Payload, input: Input) => ChangeEvent[];
}

const capitalize = (s: string) => s[0].toUpperCase() + s.slice(1);

export function defineMutation<Input = any, Payload = any>(name: string, options: MutationOptions<Input, Payload>) {
  const typeName = capitalize(name);
  const inputRef = builder.inputType(`${typeName}Input`, {
    description: `Input of ${name}.`,
    fields: options.input,
  });
  const members = [options.payload, ...new Set([...options.errors, InvalidInputError])];
  const resultRef = builder.unionType(`${typeName}Result`, {
    description: `What ${name} returns: the payload, or why nothing was changed.`,
    types: members,
    resolveType: (value: any) => value?.typename ?? options.payload.name,
  });
  builder.mutationField(name, (t) =>
    t.field({
      type: resultRef,
      description: options.description,
      args: { input: t.arg({ type: inputRef, required: true }) },
      resolve: async (_root, args, ctx) => {
        try {
          const gateway = ctx.gateway;
          if (gateway && options.owner) await refuseWhenMirrored(name, options.owner, gateway);
          const result =
            gateway && !options.local
              ? await throughGateway(name, options, args.input as Input, ctx, gateway)
              : ctx.db.transaction(() => options.resolve(args.input as Input, ctx));
          ctx.changed();
          if (options.events) publish(ctx.feed, options.events(result, args.input as Input));
          return result as any;
        } catch (error) {
          // graphql-js treats a returned Error as a failure: hand the error over as plain data.
          if (error instanceof DomainError) return { ...error, message: error.message } as any;
          if (error instanceof UpstreamUnavailable) throw new GraphQLError(`${name}: nothing was changed. ${error.message}`, { extensions: { code: 'UPSTREAM_UNAVAILABLE' } });
          throw error;
        }
      },
    }),
  );
  return resultRef;
}

const OWNER_NAMES = { compute: 'Nova', image: 'Glance', baremetal: 'Ironic' } as const;

async function refuseWhenMirrored(name: string, owner: NonNullable<MutationOptions<unknown, unknown>['owner']>, gateway: Gateway) {
  const url = await gateway.serviceUrl(owner.service);
  if (!url) return;
  throw new GraphQLError(`${name} is not available in gateway mode: ${owner.what} are mirrored from ${OWNER_NAMES[owner.service]} at ${url}; ${owner.use}`, {
    extensions: { code: 'NOT_AVAILABLE_IN_GATEWAY_MODE', service: owner.service },
  });
}

function throughGateway<Input, Payload>(name: string, options: MutationOptions<Input, Payload>, input: Input, ctx: Context, gateway: Gateway): Promise<Payload> {
  if (!options.upstream) {
    throw new GraphQLError(
      `${name} is not available in gateway mode: this server mirrors Placement at ${gateway.status().url}, and the change would be lost at the next refresh. Make it in the service that owns the data.`,
      { extensions: { code: 'NOT_AVAILABLE_IN_GATEWAY_MODE' } },
    );
  }
  return options.upstream(input, ctx, gateway);
}
