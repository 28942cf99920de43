// The one configuration file the server and the `stoa` command share (Mastodon's convention): `.env.production` in
// the working directory, or the file named by `--env-file <path>`. Both programs read it here, the same way, so the
// CLI acts on the server's database. Variables already in the real environment win over the file.
import fs from 'node:fs';
import path from 'node:path';
import { parseEnv } from 'node:util';

export const DEFAULT_ENV_FILE = '.env.production';

export interface Environment {
  /** The real environment with the file's variables added beneath it. */
  readonly env: Record<string, string | undefined>;
  /** The file read, absolute; null when there was none. */
  readonly file: string | null;
  /** The arguments without `--env-file <path>`. */
  readonly args: string[];
}

export class EnvFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EnvFileError';
  }
}

/**
 * Takes `--env-file <path>` (or `--env-file=<path>`) out of args and reads that file; without it, `.env.production`
 * in cwd if there is one. A named file that cannot be read is an error; a missing default file is not.
 */
export function readEnvironment(args: readonly string[], env: Record<string, string | undefined> = process.env, cwd = process.cwd()): Environment {
  const rest: string[] = [];
  let named: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--env-file') {
      named = args[++i];
      if (named === undefined || named === '') throw new EnvFileError('--env-file needs a path');
    } else if (a.startsWith('--env-file=')) {
      named = a.slice('--env-file='.length);
      if (named === '') throw new EnvFileError('--env-file needs a path');
    } else {
      rest.push(a);
    }
  }
  const file = path.resolve(cwd, named ?? DEFAULT_ENV_FILE);
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    if (named === undefined && (e as NodeJS.ErrnoException).code === 'ENOENT') return { env: { ...env }, file: null, args: rest };
    throw new EnvFileError(`cannot read the configuration file ${file}: ${(e as Error).message}`);
  }
  const fromFile = parseEnv(text);
  const merged: Record<string, string | undefined> = { ...fromFile };
  for (const [k, v] of Object.entries(env)) if (v !== undefined) merged[k] = v;
  return { env: merged, file, args: rest };
}
