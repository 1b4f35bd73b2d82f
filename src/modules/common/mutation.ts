// One shape for every mutation: a single `input`, a result union of a payload and named errors, and
// the change made through the write port (ctx.writes), which knows where the data lives. The
// resolver's input type is inferred from the Pothos input fields; its result must fit the payload.
import type { InputFieldMap, InputShapeFromFields } from '@pothos/core';
import { builder, type InputFieldBuilder, type Types } from '../../builder.js';
import type { Context } from '../../context.js';
import { DomainError, InvalidInput, NotAvailableHere, UpstreamUnavailable } from './errors.js';
import { textProblems } from '../../rules/text.js';
import { InvalidInputError, typenameOf } from './errors.graphql.js';
import { GraphQLError } from 'graphql';

interface MutationOptions<Fields extends InputFieldMap, Payload, Input = InputShapeFromFields<Fields>> {
  description: string;
  /** Fields of the input object, built with the input field builder; they give the resolver's input type. */
  input: (t: InputFieldBuilder) => Fields;
  /** The success type: an object ref whose shape is what the resolver returns. */
  payload: PothosSchemaTypes.ObjectRef<Types, Payload>;
  /** The error types besides InvalidInput. */
  errors: PothosSchemaTypes.ObjectRef<Types, DomainError>[];
  /** Calls the write port (ctx.writes), which commits the change or refuses it whole, and shapes the payload. */
  resolve: (input: Input, ctx: Context) => Promise<NoInfer<Payload>>;
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
          return await options.resolve(input, ctx);
        } catch (error) {
          // graphql-js treats a returned Error as a failure: hand the error over as plain data.
          if (error instanceof DomainError) return { ...error, message: error.message };
          if (error instanceof UpstreamUnavailable) throw new GraphQLError(`${name}: nothing was changed. ${error.message}`, { extensions: { code: 'UPSTREAM_UNAVAILABLE' } });
          if (error instanceof NotAvailableHere) {
            throw new GraphQLError(error.message, { extensions: { code: 'NOT_AVAILABLE_IN_GATEWAY_MODE', ...(error.service ? { service: error.service } : {}) } });
          }
          throw error;
        } finally {
          // The payload's fields read fresh rows (a refused gateway write may have applied part of its change).
          ctx.changed();
        }
      },
    });
  });
  return resultRef;
}
