// Debian's real clients, driven as a member drives them: toot 0.34 and Mastodon.py 1.8, each signing in through its
// own out-of-band OAuth flow (it prints the consent page's URL and waits for the code; the member signs in on the
// page, presses Authorize, and pastes the code shown there).
import { execFile, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { authorize, signIn } from './oauth.js';

const exec = promisify(execFile);

/** What the member does in the browser for an out-of-band consent URL: sign in, Authorize, read the code. */
export async function codeFromConsentPage(baseUrl: string, consentUrl: string, login: string, password: string): Promise<string> {
  const jar = await signIn(baseUrl, login, password);
  const query = Object.fromEntries(new URL(consentUrl).searchParams);
  delete query['response_type'];
  const r = await authorize(baseUrl, jar, query);
  const m = /id="authorization-code">([^<]+)</.exec(r.html);
  if (!m) throw new Error(`no code on the consent page (status ${r.status})`);
  return m[1]!.trim();
}

/**
 * Runs `cmd` until it exits; when a line of its output matches `urlPattern`, the member gets the code for that URL
 * and types it (after `before`, lines answering earlier prompts).
 */
async function interactiveOob(
  cmd: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  urlPattern: RegExp,
  code: (url: string) => Promise<string>,
  before: readonly string[] = [],
): Promise<{ stdout: string; stderr: string; status: number | null }> {
  const child = spawn(cmd, args, { env, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  let answered = false;
  const done = new Promise<number | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', resolve);
  });
  child.stderr.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  child.stdout.on('data', (d: Buffer) => {
    stdout += d.toString();
    const m = urlPattern.exec(stdout);
    if (m && !answered) {
      answered = true;
      code(m[1]!).then(
        (c) => child.stdin.end(`${before.map((l) => `${l}\n`).join('')}${c}\n`),
        (e: Error) => {
          stderr += `\n[test] ${e.message}`;
          child.kill();
        },
      );
    }
  });
  const status = await done;
  return { stdout, stderr, status };
}

/** toot with its own configuration directory, signed in as `login` through its browser (out-of-band) flow. */
export class Toot {
  private constructor(
    private readonly dir: string,
    private readonly env: NodeJS.ProcessEnv,
  ) {}

  static async signIn(baseUrl: string, login: string, password: string): Promise<Toot> {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'stoa-toot-'));
    // BROWSER=true: toot's "open in browser" does nothing; the member opens the printed URL.
    const env = { ...process.env, XDG_CONFIG_HOME: dir, BROWSER: 'true', PYTHONUNBUFFERED: '1', LANG: 'C.UTF-8' };
    const host = new URL(baseUrl).host;
    const r = await interactiveOob(
      '/usr/bin/toot',
      ['login', '--instance', host, '--disable-https'],
      env,
      /This is the login URL:\s*\n(\S+)/,
      (url) => codeFromConsentPage(baseUrl, url, login, password),
      [''],
    );
    if (r.status !== 0 || !/Successfully logged in/i.test(r.stdout)) throw new Error(`toot login failed (${r.status}): ${r.stdout} ${r.stderr}`);
    return new Toot(dir, env);
  }

  /** One toot command; its output without colours. Fails on a non-zero exit. */
  async run(...args: string[]): Promise<string> {
    const { stdout } = await exec('/usr/bin/toot', [...args, '--no-color'], { env: this.env, timeout: 30_000 });
    return stdout;
  }

  async close(): Promise<void> {
    await rm(this.dir, { recursive: true, force: true });
  }
}

/**
 * Runs a Mastodon.py 1.8 script after signing in through its out-of-band flow: the script receives `m`, a
 * signed-in `Mastodon`, and prints its result as JSON, which this returns.
 */
export async function mastodonPy(baseUrl: string, login: string, password: string, body: string, env: Record<string, string> = {}): Promise<unknown> {
  const script = `
import json, os, sys
from mastodon import Mastodon
base = os.environ['BASE']
cid, secret = Mastodon.create_app('Mastodon.py day', scopes=['read', 'write', 'follow'], redirect_uris='urn:ietf:wg:oauth:2.0:oob', api_base_url=base)
m = Mastodon(client_id=cid, client_secret=secret, api_base_url=base, version_check_mode='none')
print('CONSENT ' + m.auth_request_url(redirect_uris='urn:ietf:wg:oauth:2.0:oob', scopes=['read', 'write', 'follow']), flush=True)
code = sys.stdin.readline().strip()
m.log_in(code=code, redirect_uri='urn:ietf:wg:oauth:2.0:oob', scopes=['read', 'write', 'follow'])
out = {}
${body}
print('RESULT ' + json.dumps(out, default=str), flush=True)
`;
  const r = await interactiveOob('/usr/bin/python3', ['-c', script], { ...process.env, ...env, BASE: baseUrl, PYTHONUNBUFFERED: '1' }, /CONSENT (\S+)/, (url) =>
    codeFromConsentPage(baseUrl, url, login, password),
  );
  const m = /RESULT (.*)/.exec(r.stdout);
  if (r.status !== 0 || !m) throw new Error(`Mastodon.py failed (${r.status}): ${r.stdout}\n${r.stderr}`);
  return JSON.parse(m[1]!);
}
