import type { Family, Route } from './route.js';

export interface Match {
  readonly route: Route;
  readonly pathParams: Record<string, string>;
}

interface PatternRoute {
  readonly route: Route;
  readonly regex: RegExp;
  readonly names: readonly string[];
}

/**
 * Spot routes are found by name (`/0/private/<Name>`, names may contain `/` as in `Earn/Allocate`);
 * futures and custody routes by path pattern with `:param` segments.
 */
export class Router {
  readonly #spot = new Map<string, Route>();
  readonly #patterns: PatternRoute[] = [];

  add(routes: readonly Route[]): void {
    for (const route of routes) {
      if (route.family === 'public' || route.family === 'private') {
        const id = `${route.family}:${route.name}`;
        if (this.#spot.has(id)) throw new Error(`route registered twice: ${id}`);
        this.#spot.set(id, route);
      } else {
        const names: string[] = [];
        const source = route.name
          .split('/')
          .map((segment) => {
            if (!segment.startsWith(':')) return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
            names.push(segment.slice(1));
            return '([^/]+)';
          })
          .join('/');
        this.#patterns.push({ route, regex: new RegExp(`^${source}$`), names });
      }
    }
  }

  spot(family: 'public' | 'private', name: string): Route | undefined {
    return this.#spot.get(`${family}:${name}`);
  }

  /** Futures or custody route for a path; `methodMismatch` when only the method differs. */
  pattern(
    family: Family,
    path: string,
    method: string,
  ): Match | { readonly methodMismatch: true } | undefined {
    let mismatch = false;
    for (const p of this.#patterns) {
      if (p.route.family !== family) continue;
      const m = p.regex.exec(path);
      if (m === null) continue;
      if (p.route.method !== undefined && p.route.method !== method) {
        mismatch = true;
        continue;
      }
      const pathParams: Record<string, string> = {};
      p.names.forEach((name, i) => {
        pathParams[name] = decodeURIComponent(m[i + 1] ?? '');
      });
      return { route: p.route, pathParams };
    }
    return mismatch ? { methodMismatch: true } : undefined;
  }

  /** Every spot name registered, for tests that check the spec's endpoint list is covered. */
  names(): string[] {
    return [
      ...this.#spot.keys(),
      ...this.#patterns.map((p) => `${p.route.family}:${p.route.name}`),
    ];
  }
}
