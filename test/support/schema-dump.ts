// The migrated schema as one readable, deterministic text, read back from PostgreSQL's catalog: what
// src/store/schema.sql holds and test/store/schema.test.ts compares. The catalog, not the migrations, is the source,
// so the snapshot shows each table as it stands after every ALTER. Only shape is read, never rows (so neither
// schema_migrations' applied_at nor the seeded roles make it differ between runs).
//
// `npm run schema` runs this file with --write: it starts a throwaway embedded PostgreSQL, migrates it, and
// rewrites src/store/schema.sql.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { Database } from '../../src/store/db.js';
import { startEmbeddedPostgres } from '../../src/store/embedded.js';
import { migrate } from '../../src/store/migrate.js';

/** Compiled to dist/test/support/; the snapshot lives beside the migrations in the source tree. */
export const SCHEMA_FILE = fileURLToPath(new URL('../../../src/store/schema.sql', import.meta.url));

export const REGENERATE = 'npm run schema';

const HEADER = `-- GENERATED, NOT APPLIED. The schema every migration in src/store/migrations/ leaves behind, read back from
-- PostgreSQL's catalog, so a table's current shape is found here in one place. Migrations remain the only way the
-- schema changes; test/store/schema.test.ts fails when this file and the migrations disagree.
-- Regenerate with: ${REGENERATE}
`;

type Q = Pick<Database, 'rows'>;

// Objects an extension installs are the extension's, not ours.
const NOT_FROM_EXTENSION = (oidCol: string, catalog: string) =>
  `NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = '${catalog}'::regclass AND d.objid = ${oidCol} AND d.deptype = 'e')`;

export async function dumpSchema(db: Q): Promise<string> {
  const out: string[] = [HEADER];
  const section = (title: string, blocks: string[]) => {
    if (blocks.length) out.push(`-- ${title}\n\n${blocks.join('\n\n')}\n`);
  };

  const extensions = await db.rows<{ extname: string }>(`SELECT extname FROM pg_extension WHERE extname <> 'plpgsql' ORDER BY extname`);
  section(
    'Extensions',
    extensions.map((e) => `CREATE EXTENSION ${e.extname};`),
  );

  const enums = await db.rows<{ name: string; labels: string[] }>(
    `SELECT t.typname AS name, array_agg(e.enumlabel ORDER BY e.enumsortorder)::text[] AS labels
       FROM pg_type t JOIN pg_enum e ON e.enumtypid = t.oid JOIN pg_namespace n ON n.oid = t.typnamespace
      WHERE n.nspname = 'public' GROUP BY t.typname ORDER BY t.typname`,
  );
  section(
    'Types',
    enums.map((t) => `CREATE TYPE ${t.name} AS ENUM (${t.labels.map((l) => `'${l.replaceAll("'", "''")}'`).join(', ')});`),
  );

  const sequences = await db.rows<{
    name: string;
    type: string;
    start: string;
    inc: string;
    min: string;
    max: string;
    cache: string;
    cycle: boolean;
    owner: string | null;
  }>(
    `SELECT s.sequencename AS name, s.data_type::text AS type, s.start_value::text AS start, s.increment_by::text AS inc,
            s.min_value::text AS min, s.max_value::text AS max, s.cache_size::text AS cache, s.cycle,
            (SELECT t.relname || '.' || a.attname FROM pg_depend d
               JOIN pg_class t ON t.oid = d.refobjid
               JOIN pg_attribute a ON a.attrelid = d.refobjid AND a.attnum = d.refobjsubid
              WHERE d.classid = 'pg_class'::regclass AND d.objid = (quote_ident(s.sequencename))::regclass
                AND d.refclassid = 'pg_class'::regclass AND d.deptype IN ('a', 'i')) AS owner
       FROM pg_sequences s WHERE s.schemaname = 'public' ORDER BY s.sequencename`,
  );
  section(
    'Sequences',
    sequences.map(
      (s) =>
        `CREATE SEQUENCE ${s.name} AS ${s.type} START ${s.start} INCREMENT ${s.inc} MINVALUE ${s.min} MAXVALUE ${s.max} CACHE ${s.cache}` +
        `${s.cycle ? ' CYCLE' : ''}${s.owner ? ` OWNED BY ${s.owner}` : ''};`,
    ),
  );

  const functions = await db.rows<{ def: string }>(
    `SELECT pg_get_functiondef(p.oid) AS def FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
      WHERE n.nspname = 'public' AND p.prokind IN ('f', 'p') AND ${NOT_FROM_EXTENSION('p.oid', 'pg_proc')}
      ORDER BY p.proname, pg_get_function_identity_arguments(p.oid)`,
  );
  section(
    'Functions',
    functions.map((f) => `${f.def.trim()};`),
  );

  const tables = await db.rows<{ oid: number; name: string; persistence: string }>(
    `SELECT c.oid::int AS oid, c.relname AS name, c.relpersistence AS persistence FROM pg_class c
       JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') AND ${NOT_FROM_EXTENSION('c.oid', 'pg_class')}
      ORDER BY c.relname`,
  );
  const blocks: string[] = [];
  for (const t of tables) blocks.push(await dumpTable(db, t.oid, t.name, t.persistence === 'u'));
  section('Tables', blocks);

  const views = await db.rows<{ name: string; materialized: boolean; def: string }>(
    `SELECT c.relname AS name, c.relkind = 'm' AS materialized, pg_get_viewdef(c.oid, true) AS def FROM pg_class c
       JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = 'public' AND c.relkind IN ('v', 'm') ORDER BY c.relname`,
  );
  section(
    'Views',
    views.map((v) => `CREATE ${v.materialized ? 'MATERIALIZED ' : ''}VIEW ${v.name} AS\n${v.def.trim().replace(/;$/, '')};`),
  );

  return `${out.join('\n').trimEnd()}\n`;
}

async function dumpTable(db: Q, oid: number, name: string, unlogged: boolean): Promise<string> {
  const columns = await db.rows<{ name: string; type: string; notnull: boolean; def: string | null; generated: string; identity: string }>(
    `SELECT a.attname AS name, format_type(a.atttypid, a.atttypmod) AS type, a.attnotnull AS notnull,
            pg_get_expr(d.adbin, d.adrelid) AS def, a.attgenerated AS generated, a.attidentity AS identity
       FROM pg_attribute a LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
      WHERE a.attrelid = $1 AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum`,
    [oid],
  );
  const lines = columns.map((c) => {
    let line = `${c.name} ${c.type}`;
    if (c.generated === 's') line += ` GENERATED ALWAYS AS (${c.def}) STORED`;
    else if (c.def !== null) line += ` DEFAULT ${c.def}`;
    if (c.identity) line += ` GENERATED ${c.identity === 'a' ? 'ALWAYS' : 'BY DEFAULT'} AS IDENTITY`;
    if (c.notnull) line += ' NOT NULL';
    return line;
  });
  // Keys first, then references, then checks; by name within each kind, so the order never depends on catalog order.
  const constraints = await db.rows<{ name: string; def: string }>(
    `SELECT conname AS name, pg_get_constraintdef(oid, true) AS def FROM pg_constraint
      WHERE conrelid = $1 AND contype IN ('p', 'u', 'f', 'c', 'x')
      ORDER BY array_position(ARRAY['p', 'u', 'x', 'f', 'c']::"char"[], contype), conname`,
    [oid],
  );
  for (const c of constraints) lines.push(`CONSTRAINT ${c.name} ${c.def}`);
  const width = Math.max(...columns.map((c) => c.name.length));
  const body = lines.map((l, i) => {
    const col = columns[i];
    const text = col ? `${col.name.padEnd(width)} ${l.slice(col.name.length + 1)}` : l;
    return `  ${text}${i < lines.length - 1 ? ',' : ''}`;
  });
  const parts = [`CREATE ${unlogged ? 'UNLOGGED ' : ''}TABLE ${name} (\n${body.join('\n')}\n);`];

  // Indexes that back a constraint are already shown as that constraint.
  const indexes = await db.rows<{ def: string }>(
    `SELECT pg_get_indexdef(i.indexrelid) AS def FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
      WHERE i.indrelid = $1 AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = i.indexrelid AND k.conrelid = $1)
      ORDER BY c.relname`,
    [oid],
  );
  for (const i of indexes) parts.push(`${i.def.replace(' ON public.', ' ON ')};`);

  const triggers = await db.rows<{ def: string }>(
    `SELECT pg_get_triggerdef(oid, true) AS def FROM pg_trigger WHERE tgrelid = $1 AND NOT tgisinternal ORDER BY tgname`,
    [oid],
  );
  for (const t of triggers) parts.push(`${t.def};`);
  return parts.join('\n');
}

/** Migrates a throwaway embedded cluster and writes the snapshot: the body of `npm run schema`. */
async function write(): Promise<void> {
  const silent = pino({ level: 'silent' });
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'stoa-schema-'));
  const server = await startEmbeddedPostgres(dir, pino({ level: 'warn' }), { dieWithProcess: true });
  try {
    const db = new Database(server.url, 1, silent);
    try {
      await migrate(db, silent);
      await fs.writeFile(SCHEMA_FILE, await dumpSchema(db));
    } finally {
      await db.close();
    }
  } finally {
    await server.stop();
    await fs.rm(dir, { recursive: true, force: true });
  }
  process.stdout.write(`wrote ${path.relative(process.cwd(), SCHEMA_FILE)}\n`);
}

if (process.argv.includes('--write') && process.argv[1] === fileURLToPath(import.meta.url)) {
  write().catch((e: unknown) => {
    process.stderr.write(`schema dump failed: ${e instanceof Error ? e.stack : String(e)}\n`);
    process.exit(1);
  });
}
