// What the benches ask of the machine: a free loopback port for a server they start, and the load average as their
// reports print it (the noise a figure was measured in).
import net from 'node:net';
import os from 'node:os';

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

/** The 1, 5 and 15 minute load averages, two decimals each. */
export function loadavg(): string {
  return os
    .loadavg()
    .map((n) => n.toFixed(2))
    .join(' ');
}
