// The import graph of src/, read from the files' import and export statements (type-only ones
// included: a cycle of types is still a cycle a reader has to untangle).
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const SRC = join(ROOT, 'src');

// `import x from 'y'`, `import type {..} from 'y'`, `export * from 'y'`, `import 'y'`, `import('y')`.
const SPECIFIER = /(?:^|[;\s])(?:import|export)\s[^'"`;]*?from\s*['"]([^'"]+)['"]|(?:^|[;\s])import\s*['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)/g;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** Comments removed, so that a commented-out import does not count (strings are left as they are). */
const withoutComments = (text: string) => text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1');

export interface ImportGraph {
  /** File (relative to the repository, e.g. src/main.ts) -> the src files it imports. */
  files: Map<string, string[]>;
  /** File -> the packages it imports (e.g. graphql, @pothos/core, node:fs). */
  packages: Map<string, string[]>;
}

export function readImportGraph(): ImportGraph {
  const files = new Map<string, string[]>();
  const packages = new Map<string, string[]>();
  for (const path of sourceFiles(SRC)) {
    const file = relative(ROOT, path);
    const local: string[] = [];
    const external: string[] = [];
    for (const match of withoutComments(readFileSync(path, 'utf8')).matchAll(SPECIFIER)) {
      const specifier = match[1] ?? match[2] ?? match[3];
      if (specifier.startsWith('.')) {
        const target = relative(ROOT, resolve(dirname(path), specifier)).replace(/\.js$/, '.ts');
        if (target.endsWith('.ts')) local.push(target);
      } else external.push(specifier);
    }
    files.set(file, [...new Set(local)]);
    packages.set(file, [...new Set(external)]);
  }
  return { files, packages };
}

/** Every cycle's files (strongly connected components of more than one file, or a file importing itself), by Tarjan's algorithm. */
export function cycles(graph: Map<string, string[]>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, counter);
    low.set(v, counter++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(component.sort());
    }
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) visit(v);
  return found;
}
