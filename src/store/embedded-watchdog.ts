// A tiny companion process that stops the embedded PostgreSQL the moment its owner dies in a way no 'exit' handler
// sees (SIGKILL, a native abort). It holds the read end of a pipe from the owner: the kernel closes the pipe when
// the owner dies, whatever the cause, so the companion is woken rather than polling.
import { spawn } from 'node:child_process';

// Runs in the companion: on end of input, ask the postmaster for a fast shutdown (committed data is safe).
const COMPANION = `
const pid = Number(process.argv[1]);
const stop = () => { try { process.kill(pid, 'SIGINT'); } catch {} process.exit(0); };
process.stdin.on('end', stop); process.stdin.on('error', stop); process.stdin.on('close', stop);
process.stdin.resume();
for (const s of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(s, () => {});
`;

export interface Watchdog {
  /** Ends the companion without touching PostgreSQL (the owner stopped it in order). */
  dismiss(): void;
}

export function watchPostmaster(postmasterPid: number): Watchdog {
  const child = spawn(process.execPath, ['-e', COMPANION, String(postmasterPid)], {
    stdio: ['pipe', 'ignore', 'ignore'],
    // Its own process group: a Ctrl-C or a group kill aimed at the owner must not take the companion first.
    detached: true,
  });
  child.on('error', () => undefined);
  child.stdin!.on('error', () => undefined);
  // Neither the companion nor its pipe keeps the owner's event loop alive.
  child.unref();
  (child.stdin as unknown as { unref?: () => void }).unref?.();
  return {
    dismiss: () => {
      child.kill('SIGKILL');
    },
  };
}
