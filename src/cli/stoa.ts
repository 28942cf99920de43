#!/usr/bin/env node
// Operator command line: `stoa users create --username NAME --password PW --role admin|moderator|user [--email E]`.
// Uses the same configuration as the server (DATABASE_URL, or the embedded database under STOA_DATA_DIR).
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { ConfigError, loadConfig } from '../../config/schema.js';
import { hashPassword } from '../auth/password.js';
import { RoleId, type RoleName } from '../auth/permissions.js';
import { USERNAME_PATTERN } from '../auth/usernames.js';
import { openDatabase } from '../bootstrap.js';
import { createLogger } from '../log.js';
import { DuplicateError, UserStore } from '../store/users.js';

const USAGE = `Usage:
  stoa users create --username NAME --password PASSWORD [--role admin|moderator|user] [--email EMAIL]`;

const CreateArgs = z.object({
  username: z.string().max(30).regex(USERNAME_PATTERN, 'may contain only letters, numbers, underscores, dots and dashes'),
  password: z.string().min(8, 'must be at least 8 characters').max(1000),
  role: z.enum(['admin', 'moderator', 'user', 'owner']).default('user'),
  email: z.string().email().optional(),
});

function fail(message: string, code = 2): never {
  console.error(message);
  process.exit(code);
}

async function usersCreate(argv: string[]): Promise<void> {
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
  const config = loadConfig();
  const log = createLogger(process.env['LOG_LEVEL'] ? config.logLevel : 'warn');
  const { db, stopEmbedded } = await openDatabase(config, log);
  try {
    const user = await new UserStore(db).create({
      username: args.username,
      email: args.email ?? `${args.username}@${config.localDomain.replace(/:\d+$/, '')}`,
      passwordHash: await hashPassword(args.password),
      roleId: RoleId[args.role as RoleName],
      approved: true,
    });
    console.log(`Created @${user.username} (${args.role}), account id ${user.accountId}.`);
  } catch (e) {
    if (e instanceof DuplicateError) fail(`That ${e.field} is already taken.`, 1);
    throw e;
  } finally {
    await db.close();
    await stopEmbedded();
  }
}

async function main(): Promise<void> {
  const [group, command, ...rest] = process.argv.slice(2);
  if (group === 'users' && command === 'create') return usersCreate(rest);
  fail(USAGE);
}

main().catch((e: unknown) => {
  if (e instanceof ConfigError) fail(e.message, 78);
  fail(`stoa: ${e instanceof Error ? e.message : String(e)}`, 1);
});
