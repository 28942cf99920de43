// The server's metrics registry: its own prom-client Registry (never the global one, so two servers in one process
// keep apart), the process's default metrics, and the HTTP latency histogram the front end feeds per request.
import { collectDefaultMetrics, Histogram, Registry } from 'prom-client';

/** Methods kept as labels; anything else a client sends is `other`, so label values stay a small set. */
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
/** From a cached document (well under a millisecond) to a slow remote fetch behind a request. */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export class Metrics {
  readonly registry = new Registry();
  private readonly latency: Histogram<'method' | 'route' | 'status_class'>;

  constructor() {
    collectDefaultMetrics({ register: this.registry });
    this.latency = new Histogram({
      name: 'stoa_http_request_duration_seconds',
      help: 'HTTP requests by method, route pattern (`unmatched`: no route) and status class (`aborted`: the client left)',
      labelNames: ['method', 'route', 'status_class'],
      buckets: LATENCY_BUCKETS,
      registers: [this.registry],
    });
  }

  /** One finished request: its route's pattern (never the raw path, whose values are unbounded), status 0 if aborted. */
  observeRequest(route: string, method: string, status: number, ms: number): void {
    const statusClass = status === 0 ? 'aborted' : `${Math.floor(status / 100)}xx`;
    this.latency.observe({ method: METHODS.has(method) ? method : 'other', route, status_class: statusClass }, ms / 1000);
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  /** The exposition text; gauges collected on scrape run here. */
  text(): Promise<string> {
    return this.registry.metrics();
  }
}
