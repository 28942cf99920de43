#!/usr/bin/env node
// Operator command line: `stoa [--env-file PATH] start` runs the server under its supervisor (supervise.ts; what
// `npm start` runs); `stoa [--env-file PATH] users create --username NAME --password PW --role admin|moderator|user
// [--email E]`. It reads the server's configuration file the server's way (config/env-file.ts), says which database
// it acts on, and never creates an embedded database: one that does not exist yet means the wrong configuration.
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { EnvFileError, type Environment, readEnvironment } from '../../config/env-file.js';
import { ConfigError, loadConfig } from '../../config/schema.js';
import { hashPassword } from '../auth/password.js';
import { RoleId, type RoleName } from '../auth/permissions.js';
import { USERNAME_PATTERN } from '../auth/usernames.js';
import { describeDatabase, NoDatabaseError, openDatabase } from '../bootstrap.js';
import { createLogger } from '../log.js';
import { DuplicateError, UserStore } from '../store/users.js';
import { supervise } from './supervise.js';

const USAGE = `Usage:
  stoa [--env-file PATH] start
  stoa [--env-file PATH] users create --username NAME --password PASSWORD [--role admin|moderator|user] [--email EMAIL]

The configuration (DATABASE_URL, STOA_DATA_DIR, ...) is the server's: the environment, over .env.production in the
current directory or the file given with --env-file.`;

const CreateArgs = z.object({
  username: z.string().max(30).regex(USERNAME_PATTERN, 'may contain only letters, numbers, underscores, dots and dashes'),
  password: z.string().min(8, 'must be at least 8 characters').max(1000),
  role: z.enum(['admin', 'moderator', 'user', 'owner']).default('user'),
  email: z.string().email().optional(),
});

function fail(message: string, code = 2): never {
  process.stderr.write(`${message}\n`);
  process.exit(code);
}

function say(message: string): void {
  process.stdout.write(`${message}\n`);
}

async function usersCreate(argv: string[], environment: Environment): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: { username: { type: 'string' }, password: { type: 'string' }, role: { type: 'string' }, email: { type: 'string' } },
    strict: true,
  });
  const parsed = CreateArgs.safeParse(values);
  if (!parsed.success) {
    const i = parsed.error.issues[0]!;
    fail(`--${String(i.path[0])} ${i.message}\n${USAGE}`);
  }
  const args = parsed.data;
  const config = loadConfig(environment.env);
  const log = createLogger(environment.env['LOG_LEVEL'] ? config.logLevel : 'warn', { format: config.logFormat });
  say(`Configuration: ${environment.file ?? 'the environment only (no .env.production here, no --env-file)'}`);
  const { db, stopEmbedded } = await openDatabase(config, log, { createEmbedded: false });
  say(`Database: ${describeDatabase(config)}`);
  try {
    const user = await new UserStore(db).create({
      username: args.username,
      email: args.email ?? `${args.username}@${config.localDomain.replace(/:\d+$/, '')}`,
      passwordHash: await hashPassword(args.password),
      roleId: RoleId[args.role as RoleName],
      approved: true,
    });
    say(`Created @${user.username} (${args.role}), account id ${user.accountId}.`);
  } catch (e) {
    if (e instanceof DuplicateError) fail(`That ${e.field} is already taken.`, 1);
    throw e;
  } finally {
    await db.close();
    await stopEmbedded();
  }
}

async function main(): Promise<void> {
  const environment = readEnvironment(process.argv.slice(2));
  const [group, command, ...rest] = environment.args;
  if (group === 'start' && command === undefined) {
    const code = await supervise(environment);
    process.stdout.write('', () => process.exit(code));
    return;
  }
  if (group === 'users' && command === 'create') return usersCreate(rest, environment);
  fail(USAGE);
}

main().catch((e: unknown) => {
  if (e instanceof ConfigError || e instanceof EnvFileError) fail(e.message, 78);
  if (e instanceof NoDatabaseError) {
    fail(
      `stoa: no database to act on: ${e.message}, and this command does not create one.\n` +
        "Start the server first (npm start) so that it creates its database, or run this command with the server's\n" +
        'configuration: from its directory (.env.production) or with --env-file PATH naming DATABASE_URL or STOA_DATA_DIR.',
      1,
    );
  }
  fail(`stoa: ${e instanceof Error ? e.message : String(e)}`, 1);
});
