// Tamper matrix with a fresh key: a statement with extra top-level and proof properties of every JSON type, then
// every character of every signed string changed (to another character of the same kind, so the shape stays
// valid), every number changed, every boolean flipped, every null replaced, every property removed or renamed,
// and a property or array element added everywhere. Each change must be refused, with signature_invalid unless
// an earlier check catches it; expectedForString and REMOVAL_REASONS list those earlier checks.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { base58btc } from 'multiformats/bases/base58';
import { verifyIdentityStatement } from '../../src/identity/identity-statement.js';
import type { Refusal } from '../../src/identity/refusals.js';
import { ACTOR, NOW_MS, clone, freshKey, signStatement, type Json, type JsonRecord } from './statement-fixtures.js';

type Path = (string | number)[];
type Expected = Refusal | readonly Refusal[];

const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const KINDS = ['0123456789', 'abcdefghijklmnopqrstuvwxyz', 'ABCDEFGHIJKLMNOPQRSTUVWXYZ'];
const SUBJECT_REFUSALS: readonly Refusal[] = ['subject_not_did_key', 'subject_invalid_encoding', 'subject_not_ed25519', 'subject_invalid_key_length'];

const key = freshKey();
const EXTRA: JsonRecord = {
  name: 'Stoa tamper test: caf\u00e9 \u2603 \ud83d\ude00',
  url: 'https://stoa.example/@alice',
  count: 42,
  ratio: -0.125,
  large: 1e21,
  zero: 0,
  flag: true,
  off: false,
  nothing: null,
  tags: ['alpha', 'Beta', 7, false, null],
  nested: { label: 'inner', list: [1, 'two', { three: 3, deep: [true, 'x9'] }], empty: {}, emptyList: [] },
};
const PROOF_EXTRA: Record<string, Json> = {
  verificationMethod: key.fragmentMethod,
  created: '2024-05-06T07:08:09.123Z',
  expires: '2099-12-31T23:59:59Z',
  nonce: 'n0nce-42',
  domain: 'stoa.example',
  extraNumber: 7,
  extraFlag: true,
  extraNull: null,
  extraObject: { k: 'v', arr: [1, 'z'] },
};
const BASE = signStatement(key, { extra: EXTRA, proof: PROOF_EXTRA });

/** What removing (or renaming) the property at a path is refused as; anything else is signature_invalid. */
const REMOVAL_REASONS: Record<string, Refusal> = {
  type: 'wrong_type',
  subject: 'malformed_statement',
  alsoKnownAs: 'malformed_statement',
  proof: 'proof_missing',
  'proof.type': 'proof_type_unsupported',
  'proof.cryptosuite': 'cryptosuite_unsupported',
  'proof.proofPurpose': 'proof_purpose_mismatch',
  'proof.verificationMethod': 'verification_method_mismatch',
  'proof.proofValue': 'proof_value_invalid',
};

function reasonOf(statement: Json, actorId = ACTOR): Refusal | 'ok' {
  const verdict = verifyIdentityStatement(JSON.stringify(statement), actorId, NOW_MS);
  return verdict.ok ? 'ok' : verdict.reason;
}

function pathKey(path: Path): string {
  return path.join('.');
}

/** Every path in `value` (objects' properties and arrays' elements, at every depth), parents before children. */
function paths(value: Json, prefix: Path = []): Path[] {
  const out: Path[] = [];
  if (Array.isArray(value)) for (const [i, v] of value.entries()) out.push([...prefix, i], ...paths(v, [...prefix, i]));
  else if (value !== null && typeof value === 'object') for (const [k, v] of Object.entries(value)) out.push([...prefix, k], ...paths(v, [...prefix, k]));
  return out;
}

function get(root: Json, path: Path): Json {
  let node: Json = root;
  for (const step of path) node = (node as Record<string | number, Json>)[step]!;
  return node;
}

/** A deep copy of BASE with `edit` applied to the container of `path` and its last step. */
function edited(path: Path, edit: (parent: Record<string | number, Json> | Json[], last: string | number) => void): JsonRecord {
  const copy = clone(BASE);
  edit(get(copy, path.slice(0, -1)) as Record<string | number, Json>, path[path.length - 1]!);
  return copy;
}

function replaceChar(c: string, base58: boolean): string {
  for (const alphabet of base58 ? [BASE58] : KINDS) {
    const i = alphabet.indexOf(c);
    if (i >= 0) return alphabet[(i + 1) % alphabet.length]!;
  }
  return c === 'x' ? 'y' : 'x';
}

/** Every one-character change of `text` (by code point, so a surrogate pair is replaced whole). */
function oneCharChanges(text: string, base58: boolean): string[] {
  const chars = Array.from(text);
  return chars.map((c, i) => [...chars.slice(0, i), replaceChar(c, base58), ...chars.slice(i + 1)].join(''));
}

/** An independent dateTimeStamp check (not the code under test): the fields must survive a Date.UTC round trip. */
function validDateTimeStamp(text: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d+)?Z$/.exec(text);
  if (!m) return false;
  const [y, mo, d, h, mi, s] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  const date = new Date(Date.UTC(y, mo - 1, d, h, mi, s));
  return (
    date.getUTCFullYear() === y &&
    date.getUTCMonth() === mo - 1 &&
    date.getUTCDate() === d &&
    date.getUTCHours() === h &&
    date.getUTCMinutes() === mi &&
    date.getUTCSeconds() === s
  );
}

/** Whether a did:key still decodes to ed 01 + 32 bytes (checked with multiformats directly). */
function stillEd25519DidKey(did: string): boolean {
  if (!/^did:key:z[1-9A-HJ-NP-Za-km-z]+$/.test(did)) return false;
  const bytes = base58btc.decode(did.slice('did:key:'.length));
  return bytes.length === 34 && bytes[0] === 0xed && bytes[1] === 0x01;
}

function expectedForString(path: Path, changed: string): Expected {
  switch (pathKey(path)) {
    case 'type':
      return 'wrong_type';
    case 'alsoKnownAs':
      return 'actor_mismatch';
    case 'subject':
      return stillEd25519DidKey(changed) ? 'verification_method_mismatch' : SUBJECT_REFUSALS;
    case 'proof.type':
      return 'proof_type_unsupported';
    case 'proof.cryptosuite':
      return 'cryptosuite_unsupported';
    case 'proof.proofPurpose':
      return 'proof_purpose_mismatch';
    case 'proof.verificationMethod':
      return 'verification_method_mismatch';
    case 'proof.created':
      return validDateTimeStamp(changed) ? 'signature_invalid' : 'created_invalid';
    case 'proof.expires':
      if (!validDateTimeStamp(changed)) return 'expires_invalid';
      return Date.parse(changed) <= NOW_MS ? 'expired' : 'signature_invalid';
    default:
      return 'signature_invalid';
  }
}

class Matrix {
  readonly mismatches: string[] = [];
  readonly seen = new Map<string, number>();
  count = 0;

  check(label: string, statement: Json, expected: Expected, actorId = ACTOR): void {
    const got = reasonOf(statement, actorId);
    this.count++;
    this.seen.set(got, (this.seen.get(got) ?? 0) + 1);
    const allowed: readonly string[] = typeof expected === 'string' ? [expected] : expected;
    if (!allowed.includes(got)) this.mismatches.push(`${label}: got ${got}, expected ${allowed.join(' | ')}`);
  }
}

const signedPaths = paths(BASE).filter((p) => pathKey(p) !== 'proof.proofValue');

describe('identity statement tamper matrix (fresh key)', () => {
  it('verifies the untampered statement with its extra properties, key order reversed or not', () => {
    assert.deepEqual(verifyIdentityStatement(JSON.stringify(BASE), ACTOR, NOW_MS), {
      ok: true,
      subject: key.did,
      expiresAtMs: Date.parse('2099-12-31T23:59:59Z'),
    });
    const reversed = Object.fromEntries(Object.entries(clone(BASE)).reverse());
    assert.equal(reasonOf(reversed), 'ok');
  });

  it('refuses every one-character change of every signed string value', () => {
    const matrix = new Matrix();
    for (const path of signedPaths) {
      const value = get(BASE, path);
      if (typeof value !== 'string') continue;
      const base58 = path[path.length - 1] === 'subject' || path[path.length - 1] === 'verificationMethod';
      oneCharChanges(value, base58).forEach((changed, i) => {
        const statement = edited(path, (parent, last) => ((parent as Record<string | number, Json>)[last] = changed));
        matrix.check(`${pathKey(path)}[${i}]`, statement, expectedForString(path, changed));
      });
    }
    assert.deepEqual(matrix.mismatches, []);
    const characters = signedPaths
      .map((p) => get(BASE, p))
      .filter((v): v is string => typeof v === 'string')
      .reduce((n, s) => n + Array.from(s).length, 0);
    assert.equal(matrix.count, characters);
    assert.ok(matrix.count > 400, `${matrix.count} changes`);
    assert.ok((matrix.seen.get('signature_invalid') ?? 0) > 100, JSON.stringify([...matrix.seen]));
  });

  it('refuses a changed alsoKnownAs as signature_invalid even when the actor ID is changed to match it', () => {
    const matrix = new Matrix();
    oneCharChanges(BASE['alsoKnownAs'] as string, false).forEach((changed, i) => {
      const statement = clone(BASE);
      statement['alsoKnownAs'] = changed;
      matrix.check(`alsoKnownAs[${i}]`, statement, 'signature_invalid', changed);
    });
    assert.deepEqual(matrix.mismatches, []);
    assert.equal(matrix.count, Array.from(ACTOR).length);
  });

  it('refuses a changed subject key as signature_invalid when the verification method is changed to match it', () => {
    const matrix = new Matrix();
    oneCharChanges(key.did, true).forEach((changed, i) => {
      const statement = clone(BASE);
      statement['subject'] = changed;
      (statement['proof'] as JsonRecord)['verificationMethod'] = `${changed}#${changed.slice('did:key:'.length)}`;
      matrix.check(`subject+method[${i}]`, statement, stillEd25519DidKey(changed) ? 'signature_invalid' : SUBJECT_REFUSALS);
    });
    assert.deepEqual(matrix.mismatches, []);
    assert.ok((matrix.seen.get('signature_invalid') ?? 0) > 30, 'most key changes still decode and reach the signature');
  });

  it('refuses every changed number, flipped boolean and replaced null as signature_invalid', () => {
    const matrix = new Matrix();
    for (const path of signedPaths) {
      const value = get(BASE, path);
      const replacements: Json[] =
        typeof value === 'number'
          ? [value + 1 !== value ? value + 1 : value * 2, value === 0 ? 1e-9 : -value, String(value)]
          : typeof value === 'boolean'
            ? [!value, String(value)]
            : value === null
              ? [0, false, '', 'null']
              : [];
      for (const replacement of replacements) {
        const statement = edited(path, (parent, last) => ((parent as Record<string | number, Json>)[last] = replacement));
        matrix.check(`${pathKey(path)} = ${JSON.stringify(replacement)}`, statement, 'signature_invalid');
      }
    }
    assert.deepEqual(matrix.mismatches, []);
    assert.ok(matrix.count >= 30, `${matrix.count} changes`);
  });

  it('refuses the removal of every property and array element, at every depth', () => {
    const matrix = new Matrix();
    for (const path of paths(BASE)) {
      const statement = edited(path, (parent, last) => {
        if (Array.isArray(parent)) parent.splice(last as number, 1);
        else delete parent[last];
      });
      matrix.check(`remove ${pathKey(path)}`, statement, REMOVAL_REASONS[pathKey(path)] ?? 'signature_invalid');
    }
    assert.deepEqual(matrix.mismatches, []);
    assert.equal(matrix.count, paths(BASE).length);
  });

  it('refuses every property renamed by one character, at every depth', () => {
    const matrix = new Matrix();
    for (const path of paths(BASE)) {
      const name = path[path.length - 1];
      if (typeof name !== 'string') continue;
      oneCharChanges(name, false).forEach((renamed, i) => {
        const statement = edited(path, (parent, last) => {
          const record = parent as Record<string, Json>;
          record[renamed] = record[last as string]!;
          delete record[last as string];
        });
        matrix.check(`rename ${pathKey(path)}[${i}] -> ${renamed}`, statement, REMOVAL_REASONS[pathKey(path)] ?? 'signature_invalid');
      });
    }
    assert.deepEqual(matrix.mismatches, []);
    assert.ok(matrix.count > 200, `${matrix.count} renames`);
  });

  it('refuses a property added to every object and an element added to, or swapped in, every array', () => {
    const matrix = new Matrix();
    const containers: Path[] = [[], ...paths(BASE).filter((p) => typeof get(BASE, p) === 'object' && get(BASE, p) !== null)];
    for (const path of containers) {
      for (const added of ['x', 0, false, null, {}, []] as Json[]) {
        const statement = clone(BASE);
        const target = get(statement, path);
        if (Array.isArray(target)) target.push(added);
        else (target as JsonRecord)['added'] = added;
        matrix.check(`add ${JSON.stringify(added)} to ${pathKey(path) || '(root)'}`, statement, 'signature_invalid');
      }
      const target = get(BASE, path);
      if (Array.isArray(target) && target.length > 1) {
        const statement = clone(BASE);
        const array = get(statement, path) as Json[];
        array.unshift(array.pop()!);
        matrix.check(`rotate ${pathKey(path)}`, statement, 'signature_invalid');
      }
    }
    assert.deepEqual(matrix.mismatches, []);
    assert.ok(matrix.count >= 60, `${matrix.count} additions`);
  });

  it('refuses an added signature property as ld_signature_unsupported and an added past expiry as expired', () => {
    const statement = clone(BASE);
    statement['signature'] = { type: 'RsaSignature2017' };
    assert.equal(reasonOf(statement), 'ld_signature_unsupported');
    const expiring = clone(BASE);
    (expiring['proof'] as JsonRecord)['expires'] = '2025-06-01T11:59:59Z';
    assert.equal(reasonOf(expiring), 'expired');
  });
});

describe('identity statement tamper matrix with @context (fresh key)', () => {
  const context = ['https://www.w3.org/ns/activitystreams', 'https://w3id.org/security/data-integrity/v2'];
  const signed = signStatement(key, { extra: { '@context': context }, proof: { '@context': context } });

  it('refuses every one-character change of either @context as proof_context_mismatch', () => {
    assert.equal(reasonOf(signed), 'ok');
    const matrix = new Matrix();
    for (const [where, holder] of [
      ['statement', (s: JsonRecord) => s],
      ['proof', (s: JsonRecord) => s['proof'] as JsonRecord],
    ] as const) {
      context.forEach((url, n) => {
        oneCharChanges(url, false).forEach((changed, i) => {
          const statement = clone(signed);
          (holder(statement)['@context'] as Json[])[n] = changed;
          matrix.check(`${where} @context[${n}][${i}]`, statement, 'proof_context_mismatch');
        });
      });
    }
    assert.deepEqual(matrix.mismatches, []);
    assert.equal(matrix.count, 2 * context.reduce((n, s) => n + s.length, 0));
  });

  it('refuses every one-character change made to both @contexts alike as signature_invalid (the context is signed)', () => {
    // The equality rule passes these, so only the hash can refuse them: the proof config carries the proof
    // @context and the document is hashed with it.
    const matrix = new Matrix();
    context.forEach((url, n) => {
      oneCharChanges(url, false).forEach((changed, i) => {
        const statement = clone(signed);
        for (const holder of [statement, statement['proof'] as JsonRecord]) (holder['@context'] as Json[])[n] = changed;
        matrix.check(`both @context[${n}][${i}]`, statement, 'signature_invalid');
      });
    });
    for (const edit of [(list: Json[]) => list.push('https://w3id.org/fep/c390'), (list: Json[]) => list.pop(), (list: Json[]) => list.reverse()]) {
      const statement = clone(signed);
      for (const holder of [statement, statement['proof'] as JsonRecord]) edit(holder['@context'] as Json[]);
      matrix.check(`both @context ${edit.toString()}`, statement, 'signature_invalid');
    }
    assert.deepEqual(matrix.mismatches, []);
    assert.equal(matrix.count, context.reduce((n, s) => n + s.length, 0) + 3);
  });

  it('refuses an entry added to either @context, at either end, as proof_context_mismatch', () => {
    for (const where of ['statement', 'proof'] as const) {
      for (const end of ['start', 'end'] as const) {
        const statement = clone(signed);
        const holder = where === 'statement' ? statement : (statement['proof'] as JsonRecord);
        const list = holder['@context'] as Json[];
        if (end === 'start') list.unshift('https://w3id.org/fep/c390');
        else list.push('https://w3id.org/fep/c390');
        assert.equal(reasonOf(statement), 'proof_context_mismatch', `${where} ${end}`);
      }
    }
  });

  it('refuses removing the statement @context as proof_context_mismatch and the proof @context as signature_invalid', () => {
    const noDocumentContext = clone(signed);
    delete noDocumentContext['@context'];
    assert.equal(reasonOf(noDocumentContext), 'proof_context_mismatch');
    const noProofContext = clone(signed);
    delete (noProofContext['proof'] as JsonRecord)['@context'];
    assert.equal(reasonOf(noProofContext), 'signature_invalid');
  });
});
