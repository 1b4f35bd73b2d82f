// Every table, for drizzle (the ORM and drizzle-kit's migrations read this file): Placement's own
// tables, then those of the later domains, which live beside their modules. Table files import
// each other, never this file.
export * from './placement.tables.js';
export * from './changes.tables.js';
export * from '../modules/provider-config/provider-config.tables.js';
export * from '../modules/flavors/flavors.tables.js';
export * from '../modules/images/images.tables.js';
export * from '../modules/nodes/nodes.tables.js';
export * from '../modules/servers/servers.tables.js';
export * from '../modules/upstream/upstream.tables.js';
