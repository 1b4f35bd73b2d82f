// Images whose properties carry traits, their mutations, and the rebuild pre-flight.
import { builder } from '../../builder.js';
import { connectionOptions, edgeOptions, offsetConnection } from '../common/connection.js';
import { DuplicateNameError, NotFoundError } from '../common/errors.graphql.js';
import { defineMutation } from '../common/mutation.js';
import { ProblemRef } from '../common/problem.graphql.js';
import { RequestRefused } from '../common/errors.js';
import { ResourceProviderRef } from '../providers/providers.graphql.js';
import * as service from './images.service.js';
import type { ImageProperty, ImageRow } from './images.service.js';
import { rebuildCheck, type RebuildCheck } from './rebuild.js';

export const ImagePropertyInput = builder.inputType('ImagePropertyInput', {
  description: "One of an image's additional properties (Glance), e.g. trait:HW_CPU_X86_AVX2=required.",
  fields: (t) => ({
    key: t.string({ required: true, description: 'The key (1 to 255 characters).' }),
    value: t.string({ required: true, description: 'The value.' }),
  }),
});

const ImagePropertyRef = builder.objectRef<ImageProperty>('ImageProperty').implement({
  description: "One of an image's additional properties.",
  fields: (t) => ({
    key: t.exposeString('key', { description: 'The key.' }),
    value: t.exposeString('value', { description: 'The value.' }),
  }),
});

export const ImageRef = builder.objectRef<ImageRow>('Image');

builder.node(ImageRef, {
  description: 'An image (Glance) whose properties may require traits of the hosts its servers run on.',
  id: { resolve: (i) => i.name },
  loadOne: (name, ctx) => ctx.loaders.images.byName.load(name),
  fields: (t) => ({
    name: t.exposeString('name', { description: 'The natural key.' }),
    uuid: t.exposeString('uuid', { description: 'Its uuid (Nova names images by it in some messages).' }),
    properties: t.field({
      type: [ImagePropertyRef],
      description: 'Its additional properties, in the order they were first set.',
      resolve: (i, _args, ctx) => ctx.loaders.images.properties.load(i.id),
    }),
    requiredTraits: t.stringList({
      description: 'The traits Nova requires on the host for this image: trait:NAME=required properties, sorted.',
      resolve: async (i, _args, ctx) => service.requiredTraits(await ctx.loaders.images.properties.load(i.id)),
    }),
    warnings: t.field({
      type: [ProblemRef],
      description: 'Properties Nova ignores (trait:X=forbidden, suffixed traitN: keys, other values) or refuses (typed properties it cannot read).',
      resolve: async (i, _args, ctx) => service.propertyWarnings(await ctx.loaders.images.properties.load(i.id)),
    }),
  }),
});

const RebuildCheckRef = builder.objectRef<RebuildCheck>('RebuildCheck').implement({
  description: "Nova's pre-flight for rebuilding a server on its host with a new image (its allocations stay where they are).",
  fields: (t) => ({
    allowed: t.exposeBoolean('allowed', { description: 'Whether Nova lets the rebuild go on.' }),
    reason: t.string({ nullable: true, description: "Nova's NoValidHost text when it refuses; null when allowed.", resolve: (c) => c.reason }),
    imageTraits: t.exposeStringList('imageTraits', { description: 'The traits the new image requires.' }),
    forbiddenTraits: t.exposeStringList('forbiddenTraits', { description: 'Image traits the flavor forbids (in any request group).' }),
    missingTraits: t.exposeStringList('missingTraits', { description: "Image traits none of the providers of the server's allocations has." }),
    providers: t.field({
      type: [ResourceProviderRef],
      description: "The providers of the server's allocations, whose traits count (empty when the image requires no traits).",
      resolve: async (c, _args, ctx) => (await Promise.all(c.providerIds.map((id) => ctx.loaders.providers.byId.load(id)))).filter((p) => p !== undefined),
    }),
  }),
});

const ImageFilter = builder.inputType('ImageFilter', {
  description: 'Which images to list.',
  fields: (t) => ({
    search: t.string({ required: false, description: 'Names containing this (case-insensitive).' }),
    requiredTrait: t.string({ required: false, description: 'Only images that require this trait.' }),
  }),
});

builder.queryFields((t) => ({
  image: t.field({
    type: ImageRef,
    nullable: true,
    description: 'The image with this name, or null.',
    args: { name: t.arg.string({ required: true, description: 'Its name.' }) },
    resolve: (_root, { name }, ctx) => ctx.loaders.images.byName.load(name),
  }),
  images: t.connection(
    {
      type: ImageRef,
      description: 'Images, by name.',
      args: { filter: t.arg({ type: ImageFilter, required: false, description: 'Which images; all when absent.' }) },
      resolve: (_root, args, ctx) =>
        offsetConnection(args, (page) => {
          const result = service.listImages(ctx.db, { search: args.filter?.search, trait: args.filter?.requiredTrait }, page);
          for (const row of result.rows) ctx.loaders.images.byId.prime(row.id, row);
          return result;
        }),
    },
    connectionOptions('Image', 'images'),
    edgeOptions('Image', 'images'),
  ),
  rebuildCheck: t.field({
    type: RebuildCheckRef,
    description:
      "Whether Nova would let a server (a consumer) be rebuilt with a new image on its current host: refused when the flavor forbids an image trait, or when image traits are missing from the providers the server's allocations are on.",
    args: {
      consumer: t.arg({ type: 'UUID', required: true, description: 'The server (its consumer uuid).' }),
      flavor: t.arg.string({ required: true, description: "The server's flavor." }),
      image: t.arg.string({ required: true, description: 'The new image.' }),
    },
    resolve: async (_root, args, ctx) => {
      const flavor = await ctx.loaders.flavors.byName.load(args.flavor);
      if (!flavor) throw new RequestRefused(`Flavor ${args.flavor} could not be found.`, 404);
      const image = await ctx.loaders.images.byName.load(args.image);
      if (!image) throw new RequestRefused(`Image ${args.image} could not be found.`, 404);
      return rebuildCheck(ctx.db, args.consumer, flavor, image);
    },
  }),
}));

const ImagePayload = builder.objectRef<service.ImageChange>('ImagePayload').implement({
  description: 'The image after the change, and what Nova would ignore or refuse among its properties.',
  fields: (t) => ({
    image: t.field({ type: ImageRef, description: 'The image as it is now.', resolve: (p) => p.image }),
    warnings: t.field({ type: [ProblemRef], description: 'Properties Nova ignores or refuses (the same as Image.warnings).', resolve: (p) => p.warnings }),
  }),
});

const DeleteImagePayload = builder.objectRef<ImageRow>('DeleteImagePayload').implement({
  description: 'The image that was deleted.',
  fields: (t) => ({ name: t.exposeString('name', { description: 'Its name.' }) }),
});

defineMutation('createImage', {
  description: 'Creates an image with its properties; warnings name the properties Nova would ignore or refuse.',
  input: (t) => ({
    name: t.string({ required: true, description: 'A unique name (1 to 255 characters).' }),
    uuid: t.field({ type: 'UUID', required: false, description: 'Its uuid; a new one when absent.' }),
    properties: t.field({ type: [ImagePropertyInput], required: false, description: 'Its additional properties.' }),
  }),
  payload: ImagePayload,
  errors: [DuplicateNameError],
  resolve: (input, ctx) => ctx.writes.createImage(input),
});

defineMutation('deleteImage', {
  description: 'Deletes an image and its properties.',
  input: (t) => ({ name: t.string({ required: true, description: 'The image.' }) }),
  payload: DeleteImagePayload,
  errors: [NotFoundError],
  resolve: (input, ctx) => ctx.writes.deleteImage(input.name),
});

defineMutation('setImageProperties', {
  description: 'Adds or replaces properties of an image and removes others (each key to remove must be set).',
  input: (t) => ({
    name: t.string({ required: true, description: 'The image.' }),
    properties: t.field({ type: [ImagePropertyInput], required: false, description: 'Properties to add or replace.' }),
    remove: t.stringList({ required: false, description: 'Keys of properties to remove.' }),
  }),
  payload: ImagePayload,
  errors: [NotFoundError],
  resolve: (input, ctx) => ctx.writes.setImageProperties(input),
});
