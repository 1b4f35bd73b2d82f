// better-sqlite3 12 on Node 24 and later: its native objects are never left to the garbage collector.
//
// Database, Statement, StatementIterator and Backup derive from node::ObjectWrap. On Node 24 the
// ObjectWrap destructor calls RemoveEnvironmentCleanupHook(isolate), which looks the Environment up
// through the isolate's current context and aborts (`Assertion failed: (env) != nullptr`) when
// there is none -- as in a GC started by an allocation in a V8 builtin, which is when V8 runs the
// weak callback that deletes an unreachable statement. So every such object made is held here
// until the process ends; Node's environment cleanup then deletes them, inside a context.
// What stays held: one statement per SQL text per open database (src/db/sql.ts caches them) and,
// once a database is closed, only its small finalized wrappers (SQLite's memory is freed by close).
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);
// The addon object better-sqlite3's own `bindings` call loads (Node caches it by file name).
const root = dirname(require.resolve('better-sqlite3/package.json'));
const addon = require(join(root, 'build', 'Release', 'better_sqlite3.node')) as Record<string, any>;

// Kept on the addon object, so a second copy of this module (vitest, tsx) shares it.
const held: Set<object> = (addon.__placementHeld ??= new Set<object>());

// Node 20 and 22 delete these objects safely, so they are left alone there.
const needed = Number(process.versions.node.split('.')[0]) >= 24;

if (needed && !addon.__placementPatched) {
  addon.__placementPatched = true;
  const hold = <T extends object>(object: T): T => {
    held.add(object);
    return object;
  };
  const NativeDatabase = addon.Database;
  addon.Database = new Proxy(NativeDatabase, {
    construct: (target, args, newTarget) => hold(Reflect.construct(target, args, newTarget)),
  });
  for (const [proto, method] of [
    [NativeDatabase.prototype, 'prepare'],
    [NativeDatabase.prototype, 'backup'],
    [addon.Statement.prototype, 'iterate'],
  ] as const) {
    const original = proto[method];
    proto[method] = function (this: unknown, ...args: unknown[]) {
      return hold(original.apply(this, args));
    };
  }
}

/** How many native better-sqlite3 objects are held (for tests). */
export const heldNativeObjects = () => held.size;
