// METRICS_LISTEN: a small node:http listener that serves only GET /metrics, on an address apart from the public
// port (e.g. 127.0.0.1:9394, reachable by the Prometheus on the host but not from outside). The token, if one is
// configured, is required here too.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Errors, toHttpError } from '../errors.js';
import type { Logger } from '../log.js';
import type { Metrics } from './registry.js';
import { scrape } from './route.js';

export interface MetricsListener {
  readonly port: number;
  close(): Promise<void>;
}

export async function startMetricsListener(
  metrics: Metrics,
  where: { readonly host: string; readonly port: number },
  token: string | undefined,
  log: Logger,
): Promise<MetricsListener> {
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?', 1)[0];
    const answer =
      path !== '/metrics'
        ? Promise.reject(Errors.routeNotFound())
        : req.method !== 'GET'
          ? Promise.reject(Errors.methodNotAllowed(['GET']))
          : scrape(metrics, token, req.headers.authorization);
    answer.then(
      (reply) => {
        res.writeHead(reply.status, reply.headers);
        res.end(reply.body);
      },
      (err: unknown) => {
        const e = toHttpError(err);
        if (e.internal) log.error({ err }, 'metrics scrape failed');
        res.writeHead(e.status, { ...e.headers, 'Content-Type': 'application/json; charset=utf-8' });
        res.end(JSON.stringify(e.body));
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (e: NodeJS.ErrnoException) =>
      reject(
        new Error(
          e.code === 'EADDRINUSE'
            ? `METRICS_LISTEN: port ${where.port} is in use`
            : `METRICS_LISTEN: cannot listen on ${where.host}:${where.port} (${e.code ?? e.message})`,
        ),
      ),
    );
    server.listen({ host: where.host, port: where.port, exclusive: true }, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
