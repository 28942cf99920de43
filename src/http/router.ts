// Method + path routing. Static paths are one Map lookup (the hot routes); parametric paths (`/api/v1/accounts/:id`)
// are matched segment by segment among routes with the same segment count.
import type { Route } from './types.js';

interface ParamRoute {
  readonly segments: readonly string[]; // ':name' marks a parameter; '@:name' one after a literal '@' (profiles)
  readonly byMethod: Map<string, Route>;
}

export type Match = { kind: 'found'; route: Route; params: Record<string, string> } | { kind: 'method'; allowed: string[] } | { kind: 'none' };

const SLASH = 0x2f;
const NO_PARAMS: Record<string, string> = Object.freeze({}) as Record<string, string>;

export class Router {
  private readonly staticRoutes = new Map<string, Map<string, Route>>();
  private readonly paramRoutes = new Map<number, ParamRoute[]>();

  add(route: Route): void {
    const segments = route.path.split('/');
    if (!segments.some(isParam)) {
      let byMethod = this.staticRoutes.get(route.path);
      if (!byMethod) this.staticRoutes.set(route.path, (byMethod = new Map()));
      if (byMethod.has(route.method)) throw new Error(`duplicate route ${route.method} ${route.path}`);
      byMethod.set(route.method, route);
      return;
    }
    let list = this.paramRoutes.get(segments.length);
    if (!list) this.paramRoutes.set(segments.length, (list = []));
    let entry = list.find((r) => r.segments.join('/') === segments.join('/'));
    if (!entry) list.push((entry = { segments, byMethod: new Map() }));
    if (entry.byMethod.has(route.method)) throw new Error(`duplicate route ${route.method} ${route.path}`);
    entry.byMethod.set(route.method, route);
  }

  /**
   * One trailing slash is ignored, as Rails does: clients ask for `/api/v1/instance/` and print `/oauth/authorize/?…`.
   * Only one: `//` keeps naming nothing, so an empty segment never matches.
   */
  match(method: string, path: string): Match {
    const found = this.exact(method, path);
    if (found.kind !== 'none' || path.length < 2 || path.charCodeAt(path.length - 1) !== SLASH || path.charCodeAt(path.length - 2) === SLASH) return found;
    return this.exact(method, path.slice(0, -1));
  }

  private exact(method: string, path: string): Match {
    const lookup = method === 'HEAD' ? 'GET' : method;
    const byMethod = this.staticRoutes.get(path);
    if (byMethod) {
      const route = byMethod.get(lookup);
      return route ? { kind: 'found', route, params: NO_PARAMS } : { kind: 'method', allowed: allowedOf(byMethod) };
    }
    const parts = path.split('/');
    const candidates = this.paramRoutes.get(parts.length);
    if (!candidates) return { kind: 'none' };
    // Paths of one shape may differ by method only (GET /@:name/:id beside POST /@:name/load_older): a candidate
    // without the method does not hide a later one with it; 405 only when none has it.
    let allowed: string[] | undefined;
    for (const candidate of candidates) {
      const params = matchSegments(candidate.segments, parts);
      if (!params) continue;
      const route = candidate.byMethod.get(lookup);
      if (route) return { kind: 'found', route, params };
      allowed = [...new Set([...(allowed ?? []), ...allowedOf(candidate.byMethod)])];
    }
    return allowed ? { kind: 'method', allowed } : { kind: 'none' };
  }
}

function isParam(segment: string): boolean {
  return segment.startsWith(':') || segment.startsWith('@:');
}

function allowedOf(byMethod: Map<string, Route>): string[] {
  const allowed = [...byMethod.keys()];
  if (allowed.includes('GET')) allowed.push('HEAD');
  return allowed;
}

function matchSegments(segments: readonly string[], parts: string[]): Record<string, string> | null {
  let params: Record<string, string> | null = null;
  for (let i = 0; i < segments.length; i++) {
    const seg = segments[i]!;
    const part = parts[i]!;
    if (isParam(seg)) {
      const prefix = seg.startsWith('@') ? 1 : 0;
      if (part.length <= prefix || (prefix === 1 && part[0] !== '@')) return null;
      let value: string;
      try {
        value = decodeURIComponent(part.slice(prefix));
      } catch {
        return null;
      }
      (params ??= {})[seg.slice(prefix + 1)] = value;
    } else if (seg !== part) {
      return null;
    }
  }
  return params ?? NO_PARAMS;
}
