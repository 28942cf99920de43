// Human-facing start-up output (the URL and the first admin's one-time password). This is for the operator at a
// terminal, not a log line: plain text between two rules on stdout, so it stands out between log lines (JSON or pretty) and
// the password never becomes a field a log collector stores.
import type { App } from '../app.js';

/** From the App (main.ts), or from a server process's report to the supervisor (supervise.ts). */
export function printBanner(app: Pick<App, 'url' | 'firstAdmin'>): void {
  const lines = [`Stoa is running at ${app.url}`];
  if (app.firstAdmin) {
    lines.push(
      ``,
      `First start: an Owner account was created.`,
      `Sign in at ${app.url}/auth/sign_in with`,
      `  username: ${app.firstAdmin.username}`,
      `  password: ${app.firstAdmin.password}`,
      ``,
      `This password is shown only once. Create more users with:`,
      `  npx stoa users create --username NAME --password PW --role admin|moderator|user`,
    );
  }
  process.stdout.write(`\n${box(lines)}\n\n`);
}

/** The lines between two heavy rules as wide as the longest; no side bars, so a line copied from it is only its text. */
export function box(lines: readonly string[]): string {
  const rule = '━'.repeat(Math.max(...lines.map((l) => l.length)) + 4);
  return [rule, ...lines.map((l) => (l ? `  ${l}` : '')), rule].join('\n');
}
