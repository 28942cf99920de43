// The house's shape, kept by a test: no import circle between files, and no import that runs up (or sideways)
// between rooms. Production code only (src/, actors/, config/); tests and bench may import anything.
// Type-only imports count too: a type that has to be imported from above is a sign the type lives in the wrong room.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/** Compiled to dist/test/house/; the sources are read, not the compiled output (type imports vanish from .js). */
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const SCANNED = ['src', 'actors', 'config'];

/**
 * The rooms from the top of the house to the bottom: a room may import only rooms in a lower layer (and itself).
 * Rooms that share a layer are peers and must not import each other. A room is a folder of src/, a file directly in
 * src/, or one of the top-level folders actors/ and config/.
 */
const LAYERS: readonly (readonly string[])[] = [
  ['src/main.ts'],
  ['src/cli'],
  ['src/supervisor'], // a server process as something the actors' Supervisor supervises, and what it reports over IPC
  ['src/app.ts'], // the lifecycle
  ['src/routes.ts', 'src/supervision.ts'], // the route table; the supervision tree
  ['src/cluster-events.ts'], // what this node does for each event the cluster's LISTEN/NOTIFY brings
  ['src/wiring.ts'], // stores, federation and services built from the config
  ['src/api-groups.ts'], // the route modules' dependencies, one group per line of the route table
  ['src/api', 'src/web', 'src/metrics'], // the front ends: JSON for clients, HTML for people, metrics for operators
  ['src/views'], // presenters and render caches: rows and entities rendered for a viewer, used by api and web alike
  ['src/services'], // what a member does (post, boost, follow, vote), called by the front ends
  // remote history: walking outboxes and importing what they hold (run by actors, asked by the API); Web Push: what a
  // push says and how one is sent (run by the push actors)
  ['src/history', 'src/push'],
  ['src/federation', 'src/entities'], // ActivityPub documents and Mastodon JSON: two renderings of the same rows
  ['src/http', 'src/bootstrap.ts'],
  ['src/oauth', 'src/urls'],
  ['src/store'],
  ['src/errors.ts'], // the client-facing errors and their one HTTP mapping, which covers the runtime's overload errors
  ['actors'], // the runtime; it knows nothing of HTTP or SQL (what it runs is injected)
  ['config'],
  ['src/auth', 'src/identity', 'src/text', 'src/media', 'src/clock.ts', 'src/abort.ts', 'src/log.ts', 'src/version.ts', 'src/wake.ts'],
  ['src/log-writer.ts'],
];

interface Edge {
  readonly from: string;
  readonly to: string;
  typeOnly: boolean;
}

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
    const rel = path.posix.join(dir, e.name);
    if (e.isDirectory()) out.push(...sourceFiles(rel));
    else if (e.name.endsWith('.ts') && !e.name.endsWith('.d.ts')) out.push(rel);
  }
  return out;
}

/** Every module specifier a file names: import and export … from (type-only or not), import(), import('…').T. */
function specifiers(file: string): { spec: string; typeOnly: boolean }[] {
  const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const out: { spec: string; typeOnly: boolean }[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      const bindings = clause?.namedBindings;
      const allTypes =
        clause !== undefined &&
        (clause.isTypeOnly ||
          (!clause.name &&
            bindings !== undefined &&
            ts.isNamedImports(bindings) &&
            bindings.elements.length > 0 &&
            bindings.elements.every((e) => e.isTypeOnly)));
      out.push({ spec: node.moduleSpecifier.text, typeOnly: allTypes });
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.exportClause;
      const allTypes =
        node.isTypeOnly || (clause !== undefined && ts.isNamedExports(clause) && clause.elements.length > 0 && clause.elements.every((e) => e.isTypeOnly));
      out.push({ spec: node.moduleSpecifier.text, typeOnly: allTypes });
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const arg = node.arguments[0];
      if (arg && ts.isStringLiteralLike(arg)) out.push({ spec: arg.text, typeOnly: false });
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      out.push({ spec: node.argument.literal.text, typeOnly: true });
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

function buildGraph(): { files: string[]; edges: Edge[]; unresolved: string[] } {
  const files = SCANNED.flatMap(sourceFiles).sort();
  const known = new Set(files);
  const edges: Edge[] = [];
  const unresolved: string[] = [];
  for (const from of files) {
    for (const { spec, typeOnly } of specifiers(from)) {
      if (!spec.startsWith('.')) continue; // packages and node: builtins are outside the house
      const to = path.posix.normalize(path.posix.join(path.posix.dirname(from), spec.replace(/\.js$/, '.ts')));
      if (known.has(to)) {
        // Two imports of one module (`import type` beside `import`) are one arrow, type-only only if both are.
        const seen = edges.find((e) => e.from === from && e.to === to);
        if (seen) seen.typeOnly &&= typeOnly;
        else edges.push({ from, to, typeOnly });
      } else if (!spec.endsWith('.json')) unresolved.push(`${from} → ${spec}`);
    }
  }
  return { files, edges, unresolved };
}

function roomOf(file: string): string {
  const parts = file.split('/');
  if (parts[0] !== 'src') return parts[0]!;
  return parts.length > 2 ? `src/${parts[1]}` : file;
}

/** One cycle per strongly connected component (Tarjan), as a path that returns to its start. */
function cycles(files: readonly string[], edges: readonly Edge[]): string[][] {
  const next = new Map<string, string[]>(files.map((f) => [f, []]));
  for (const e of edges) next.get(e.from)!.push(e.to);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  let counter = 0;
  const strong = (v: string): void => {
    index.set(v, counter);
    low.set(v, counter);
    counter++;
    stack.push(v);
    onStack.add(v);
    for (const w of next.get(v)!) {
      if (!index.has(w)) {
        strong(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, index.get(w)!));
      }
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || next.get(v)!.includes(v)) components.push(component);
    }
  };
  for (const f of files) if (!index.has(f)) strong(f);
  // Within a component every file reaches every other: a shortest way back from its first file is a readable cycle.
  return components.map((component) => {
    const inside = new Set(component);
    const start = component.sort()[0]!;
    const cameFrom = new Map<string, string>();
    const queue = [start];
    while (queue.length) {
      const v = queue.shift()!;
      for (const w of next.get(v)!) {
        if (!inside.has(w)) continue;
        if (w === start) {
          const way: string[] = [];
          for (let u: string | undefined = v; u !== undefined && u !== start; u = cameFrom.get(u)) way.unshift(u);
          return [start, ...way, start];
        }
        if (!cameFrom.has(w)) {
          cameFrom.set(w, v);
          queue.push(w);
        }
      }
    }
    return component;
  });
}

const layerOf = new Map<string, number>(LAYERS.flatMap((rooms, i) => rooms.map((r) => [r, i] as const)));

function layeringViolations(edges: readonly Edge[]): Edge[] {
  return edges.filter((e) => {
    const from = roomOf(e.from);
    const to = roomOf(e.to);
    return from !== to && layerOf.get(to)! <= layerOf.get(from)!;
  });
}

const show = (e: Edge) => `${e.from} → ${e.to}${e.typeOnly ? ' (type-only)' : ''}`;

describe('the import graph of src/, actors/ and config/', () => {
  const { files, edges, unresolved } = buildGraph();

  it('is read whole: every relative import names a file of the house', () => {
    // Guards the checks below against passing on a graph the parser failed to read.
    assert.ok(files.length > 150, `only ${files.length} files found under ${SCANNED.join(', ')}`);
    assert.ok(edges.length > 500, `only ${edges.length} imports found`);
    const edge = (from: string, to: string) => edges.find((e) => e.from === from && e.to === to);
    assert.equal(edge('src/log.ts', 'src/log-writer.ts')?.typeOnly, false);
    assert.equal(edge('src/oauth/token-usage.ts', 'actors/process.ts')?.typeOnly, false, 'a value import beside `type` names is a value import');
    assert.equal(edge('src/http/auth.ts', 'src/store/oauth-tokens.ts')?.typeOnly, true);
    assert.deepEqual(unresolved, []);
  });

  it('has no circle between files (type-only imports included)', () => {
    const typeOnly = (from: string, to: string) => edges.some((e) => e.from === from && e.to === to && e.typeOnly);
    const found = cycles(files, edges).map((c) => c.map((f, i) => (i === 0 ? f : `${typeOnly(c[i - 1]!, f) ? ' →(type) ' : ' → '}${f}`)).join(''));
    assert.deepEqual(found, [], 'import circles: break each by moving the shared piece into a file both can import');
  });

  it('places every room on a layer', () => {
    const rooms = [...new Set(files.map(roomOf))].sort();
    assert.deepEqual(
      rooms.filter((r) => !layerOf.has(r)),
      [],
      'rooms missing from LAYERS in test/house/imports.test.ts',
    );
  });

  it('imports only downward, with no exception', () => {
    const unexpected = layeringViolations(edges).map((e) => `${show(e)}  [${roomOf(e.from)} may not import ${roomOf(e.to)}]`);
    assert.deepEqual(unexpected, [], 'imports that run up or sideways between rooms (see LAYERS in test/house/imports.test.ts)');
  });
});
