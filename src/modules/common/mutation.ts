// One shape for every mutation: a single `input`, a result union of a payload and named errors,
// and one transaction around the service call.
import { builder } from '../../builder.js';
import type { Context } from '../../context.js';
import { DomainError } from './errors.js';
import { publish, type ChangeEvent } from '../../server/events.js';
import { InvalidInputError } from './errors.graphql.js';

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
      resolve: (_root, args, ctx) => {
        try {
          const result = ctx.db.transaction(() => options.resolve(args.input as Input, ctx));
          ctx.changed();
          if (options.events) publish(ctx.feed, options.events(result, args.input as Input));
          return result as any;
        } catch (error) {
          // graphql-js treats a returned Error as a failure: hand the error over as plain data.
          if (error instanceof DomainError) return { ...error, message: error.message } as any;
          throw error;
        }
      },
    }),
  );
  return resultRef;
}
