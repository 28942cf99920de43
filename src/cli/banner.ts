// Human-facing start-up output (the URL and the first admin's one-time password). This is for the operator at a
// terminal, not a log line, so it goes to stdout as plain text.
import type { App } from '../app.js';

export function printBanner(app: App): void {
  const lines = [``, `Stoa is running at ${app.url}`];
  if (app.firstAdmin) {
    lines.push(
      `First start: an Owner account was created. Sign in at ${app.url}/auth/sign_in with`,
      `  username: ${app.firstAdmin.username}`,
      `  password: ${app.firstAdmin.password}`,
      `This password is shown only once. Create more users with: npx stoa users create --username NAME --password PW --role admin|moderator|user`,
    );
  }
  lines.push(``);
  process.stdout.write(lines.join('\n') + '\n');
}
