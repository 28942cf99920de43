// identity.md §9 (negative recipes derived from the valid FEP-c390 vector) and the must-reject cases of §5, each
// refused with its exact reason. Cases that need a new signature use a fresh key (statement-fixtures.ts).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ed25519DidKey } from '../../src/identity/did-key.js';
import { verifyIdentityStatement } from '../../src/identity/identity-statement.js';
import { encodeBase58btc } from '../../src/identity/multibase.js';
import type { Refusal } from '../../src/identity/refusals.js';
import { ACTOR, NOW_MS, clone, freshKey, loadVectors, proofOf, signStatement, withProof, type JsonRecord } from './statement-fixtures.js';

const current = loadVectors().identity_statement_vectors.find((v) => v.id === 'fep-c390-current-eddsa-jcs-2022-bare-did')!;
const VECTOR: JsonRecord = current.identity_proof!;
const VECTOR_ACTOR = current.actor_id;
const VECTOR_NOW = Date.parse(current.current_time!);
const SUBJECT = VECTOR['subject'] as string;
const MULTIBASE = SUBJECT.slice('did:key:'.length);

function refusalOf(statement: unknown, actorId = VECTOR_ACTOR, nowMs = VECTOR_NOW): Refusal | 'ok' {
  const verdict = verifyIdentityStatement(JSON.stringify(statement), actorId, nowMs);
  return verdict.ok ? 'ok' : verdict.reason;
}

function vectorWith(edit: (statement: JsonRecord, proof: JsonRecord) => void): JsonRecord {
  const copy = clone(VECTOR);
  edit(copy, proofOf(copy));
  return copy;
}

describe('identity.md §9 recipes on the FEP-c390 vector', () => {
  it('accepts the unchanged vector (the control for every recipe below)', () => {
    assert.equal(refusalOf(VECTOR), 'ok');
  });

  it('refuses another actor ID than alsoKnownAs as actor_mismatch', () => {
    assert.equal(refusalOf(VECTOR, 'https://server.example/users/bob'), 'actor_mismatch');
    assert.equal(refusalOf(VECTOR, 'https://server.example/users/alice/'), 'actor_mismatch');
    assert.equal(refusalOf(VECTOR, 'https://SERVER.example/users/alice'), 'actor_mismatch');
  });

  it('refuses the cryptosuite relabelled jcs-eddsa-2022 as signature_invalid (the name is hashed)', () => {
    assert.equal(refusalOf(vectorWith((_, p) => (p['cryptosuite'] = 'jcs-eddsa-2022'))), 'signature_invalid');
  });

  it('refuses unsupported cryptosuites, and a missing one, as cryptosuite_unsupported', () => {
    for (const suite of ['eddsa-rdfc-2022', 'ecdsa-jcs-2019', 'EDDSA-JCS-2022', '', 42, null]) {
      assert.equal(refusalOf(vectorWith((_, p) => (p['cryptosuite'] = suite))), 'cryptosuite_unsupported', String(suite));
    }
    assert.equal(refusalOf(vectorWith((_, p) => delete p['cryptosuite'])), 'cryptosuite_unsupported');
  });

  it('refuses proofPurpose authentication (and anything but assertionMethod) as proof_purpose_mismatch', () => {
    for (const purpose of ['authentication', 'capabilityInvocation', 'AssertionMethod']) {
      assert.equal(refusalOf(vectorWith((_, p) => (p['proofPurpose'] = purpose))), 'proof_purpose_mismatch', purpose);
    }
    assert.equal(refusalOf(vectorWith((_, p) => delete p['proofPurpose'])), 'proof_purpose_mismatch');
  });

  it('refuses other proof types (Ed25519Signature2020, the Mitra types, a type array) as proof_type_unsupported', () => {
    for (const type of [
      'Ed25519Signature2020',
      'MitraJcsEd25519Signature2022',
      'MitraJcsEip191Signature2022',
      'JcsEd25519Signature2022',
      ['DataIntegrityProof'],
    ]) {
      assert.equal(refusalOf(vectorWith((_, p) => (p['type'] = type))), 'proof_type_unsupported', String(type));
    }
    assert.equal(refusalOf(vectorWith((_, p) => delete p['type'])), 'proof_type_unsupported');
  });

  it('refuses a #keys-1 method, another key, an http key id or a missing method as verification_method_mismatch', () => {
    const other = freshKey();
    for (const method of [
      `${SUBJECT}#keys-1`,
      other.did,
      `${other.did}#${other.multibase}`,
      `${SUBJECT}#${other.multibase}`,
      'https://server.example/users/alice#main-key',
      `${SUBJECT}#`,
      7,
    ]) {
      assert.equal(refusalOf(vectorWith((_, p) => (p['verificationMethod'] = method))), 'verification_method_mismatch', String(method));
    }
    assert.equal(refusalOf(vectorWith((_, p) => delete p['verificationMethod'])), 'verification_method_mismatch');
  });

  it('refuses the Mitra fragment method with the bare-DID proofValue as signature_invalid (the method is hashed)', () => {
    assert.equal(refusalOf(vectorWith((_, p) => (p['verificationMethod'] = `${SUBJECT}#${MULTIBASE}`))), 'signature_invalid');
  });

  it('refuses a subject with a fragment, query or path, or another DID method, as subject_not_did_key', () => {
    const subjects = [
      `${SUBJECT}#${MULTIBASE}`,
      `${SUBJECT}?service=x`,
      `${SUBJECT}/path`,
      'did:pkh:eip155:1:0xb9c5714089478a327f09197987f16f9e5d936e8a',
      'did:web:server.example',
      `did:key:1:${MULTIBASE}`,
      `did:key:u7QGwDY2Tjn93PVFWWq02piP1NE9_XRlg-c8-jhJiDqKBDw`,
      `DID:KEY:${MULTIBASE}`,
      ` ${SUBJECT}`,
      `${SUBJECT}\n`,
      MULTIBASE,
      'did:key:',
    ];
    for (const subject of subjects) {
      assert.equal(refusalOf(vectorWith((s) => (s['subject'] = subject))), 'subject_not_did_key', subject);
    }
  });

  it('refuses base58 outside the alphabet (0 O I l) in the subject as subject_not_did_key', () => {
    for (const bad of ['0', 'O', 'I', 'l']) {
      const subject = `${SUBJECT.slice(0, -1)}${bad}`;
      assert.equal(refusalOf(vectorWith((s) => (s['subject'] = subject))), 'subject_not_did_key', subject);
    }
  });

  it('refuses undecodable multibase (too short, over 1024 characters, a broken varint) as subject_invalid_encoding', () => {
    const subjects = ['did:key:z1', `did:key:z${'2'.repeat(1100)}`, `did:key:${encodeBase58btc(Uint8Array.from([0x80, 0x80]))}`];
    for (const subject of subjects) {
      assert.equal(refusalOf(vectorWith((s) => (s['subject'] = subject))), 'subject_invalid_encoding', subject.slice(0, 40));
    }
  });

  it('refuses an Ed25519 multicodec with 31 or 33 key bytes as subject_invalid_key_length', () => {
    for (const length of [0, 31, 33, 64]) {
      const subject = `did:key:${encodeBase58btc(Uint8Array.from([0xed, 0x01, ...new Array<number>(length).fill(9)]))}`;
      assert.equal(refusalOf(vectorWith((s) => (s['subject'] = subject))), 'subject_invalid_key_length', String(length));
    }
  });

  it('refuses a past expires as expired before any crypto, and a future one as signature_invalid (it is hashed)', () => {
    assert.equal(refusalOf(vectorWith((_, p) => (p['expires'] = '2023-02-24T23:36:37Z'))), 'expired');
    assert.equal(refusalOf(vectorWith((_, p) => (p['expires'] = current.current_time!))), 'expired', 'expires == now is expired');
    assert.equal(refusalOf(vectorWith((_, p) => (p['expires'] = '2023-02-24T23:36:39Z'))), 'signature_invalid');
  });

  it('refuses the vector padded with an extra property to over 16384 bytes as too_large, before any other check', () => {
    const padded = vectorWith((s) => (s['padding'] = 'p'.repeat(16_384)));
    assert.equal(refusalOf(padded), 'too_large');
    assert.equal(refusalOf(padded, 'https://server.example/users/bob'), 'too_large', 'size comes before the actor check');
    const small = vectorWith((s) => (s['padding'] = 'p'.repeat(15_000)));
    assert.equal(refusalOf(small), 'signature_invalid', 'under the limit the same padding reaches the signature');
  });

  it('refuses a truncated, padded, non-base58 or non-multibase proofValue as proof_value_invalid', () => {
    const value = proofOf(VECTOR)['proofValue'] as string;
    const values: unknown[] = [
      value.slice(0, -1),
      value.slice(0, 40),
      `${value}2`,
      `${value.slice(0, -1)}0`,
      `${value.slice(0, -1)}O`,
      `${value.slice(0, -1)}I`,
      `${value.slice(0, -1)}l`,
      value.slice(1),
      `u${value.slice(1)}`,
      `z${'2'.repeat(200)}`,
      encodeBase58btc(new Uint8Array(63).fill(1)),
      encodeBase58btc(new Uint8Array(65).fill(1)),
      '',
      'z',
      64,
      null,
      [value],
    ];
    for (const v of values) {
      assert.equal(refusalOf(vectorWith((_, p) => (p['proofValue'] = v as string))), 'proof_value_invalid', String(v));
    }
    assert.equal(refusalOf(vectorWith((_, p) => delete p['proofValue'])), 'proof_value_invalid');
  });

  it('refuses a proof array (a proof set), even of one valid proof, as proof_set_unsupported', () => {
    assert.equal(refusalOf(vectorWith((s, p) => (s['proof'] = [p]))), 'proof_set_unsupported');
    assert.equal(refusalOf(vectorWith((s) => (s['proof'] = []))), 'proof_set_unsupported');
  });

  it('refuses a missing or non-object proof as proof_missing', () => {
    for (const proof of [null, 'proof', 1, true]) {
      assert.equal(refusalOf(vectorWith((s) => (s['proof'] = proof))), 'proof_missing', String(proof));
    }
    assert.equal(refusalOf(vectorWith((s) => delete s['proof'])), 'proof_missing');
  });

  it('refuses a proof @context when the statement has no @context as proof_context_mismatch', () => {
    const context = ['https://www.w3.org/ns/activitystreams', 'https://w3id.org/security/data-integrity/v2'];
    assert.equal(refusalOf(vectorWith((_, p) => (p['@context'] = context))), 'proof_context_mismatch');
    assert.equal(refusalOf(vectorWith((_, p) => (p['@context'] = 'https://w3id.org/security/data-integrity/v2'))), 'proof_context_mismatch');
  });

  it('refuses the legacy LD signature property as ld_signature_unsupported instead of stripping it', () => {
    const signature = { type: 'RsaSignature2017', creator: 'https://server.example/users/alice#main-key', signatureValue: 'abc' };
    assert.equal(refusalOf(vectorWith((s) => (s['signature'] = signature))), 'ld_signature_unsupported');
    assert.equal(refusalOf(vectorWith((s) => (s['signature'] = null))), 'ld_signature_unsupported');
  });
});

describe('identity.md §5 must-reject cases', () => {
  it('refuses a wrong statement type, a type array, or no type as wrong_type', () => {
    for (const type of [
      'VerifiableCredential',
      'verifiableidentitystatement',
      ['VerifiableIdentityStatement'],
      'https://w3id.org/fep/c390/VerifiableIdentityStatement',
    ]) {
      assert.equal(refusalOf(vectorWith((s) => (s['type'] = type))), 'wrong_type', String(type));
    }
    assert.equal(refusalOf(vectorWith((s) => delete s['type'])), 'wrong_type');
  });

  it('refuses non-object statements and missing or non-string subject or alsoKnownAs as malformed_statement', () => {
    for (const value of [null, [], [VECTOR], 'statement', 42, true]) {
      assert.equal(refusalOf(value), 'malformed_statement', JSON.stringify(value).slice(0, 30));
    }
    assert.equal(refusalOf(vectorWith((s) => delete s['subject'])), 'malformed_statement');
    assert.equal(refusalOf(vectorWith((s) => delete s['alsoKnownAs'])), 'malformed_statement');
    assert.equal(refusalOf(vectorWith((s) => (s['subject'] = [SUBJECT]))), 'malformed_statement');
    assert.equal(refusalOf(vectorWith((s) => (s['alsoKnownAs'] = [VECTOR_ACTOR]))), 'malformed_statement');
    assert.equal(refusalOf(vectorWith((s) => (s['alsoKnownAs'] = { id: VECTOR_ACTOR }))), 'malformed_statement');
  });

  it('refuses invalid created dates (impossible day, no time zone, not a string) as created_invalid', () => {
    const createdValues: unknown[] = ['2023-02-30T23:36:38Z', '2023-02-24T23:36:38', '2023-02-24', '2023-02-24 23:36:38Z', '1677281798', 1677281798, null, ''];
    for (const created of createdValues) {
      assert.equal(refusalOf(vectorWith((_, p) => (p['created'] = created as string))), 'created_invalid', String(created));
    }
  });

  it('refuses invalid expires dates (impossible day, no time zone, not a string) as expires_invalid', () => {
    const expiresValues: unknown[] = ['2099-02-30T00:00:00Z', '2099-01-01T00:00:00', '2099-13-01T00:00:00Z', 4102444800000, null, ''];
    for (const expires of expiresValues) {
      assert.equal(refusalOf(vectorWith((_, p) => (p['expires'] = expires as string))), 'expires_invalid', String(expires));
    }
  });

  it('accepts a statement without created, since DI makes it optional (freshly signed)', () => {
    const key = freshKey();
    const statement = signStatement(key, { proof: { created: undefined } });
    assert.equal('created' in proofOf(statement), false);
    assert.deepEqual(verifyIdentityStatement(JSON.stringify(statement), ACTOR, NOW_MS), { ok: true, subject: key.did, expiresAtMs: null });
  });

  it('returns expiresAtMs for a future expires and refuses the same statement once the clock passes it', () => {
    const key = freshKey();
    const expires = '2025-06-01T12:00:01.5Z';
    const statement = JSON.stringify(signStatement(key, { proof: { expires } }));
    assert.deepEqual(verifyIdentityStatement(statement, ACTOR, NOW_MS), { ok: true, subject: key.did, expiresAtMs: Date.parse(expires) });
    assert.deepEqual(verifyIdentityStatement(statement, ACTOR, Date.parse(expires)), { ok: false, reason: 'expired' });
  });

  it('verifies a proof @context equal to the statement @context, and refuses any other (fresh key)', () => {
    const key = freshKey();
    const context = ['https://www.w3.org/ns/activitystreams', 'https://w3id.org/security/data-integrity/v2'];
    const full = signStatement(key, { extra: { '@context': context }, proof: { '@context': context } });
    assert.equal(refusalOf(full, ACTOR, NOW_MS), 'ok');
    const single = signStatement(key, { extra: { '@context': context[0]! }, proof: { '@context': context[0]! } });
    assert.equal(refusalOf(single, ACTOR, NOW_MS), 'ok');
    // Stricter than vc-di-eddsa's prefix rule (as Mitra is): a proof @context that is only a prefix of the
    // statement's would leave the rest of the statement's @context unsigned.
    const prefix = signStatement(key, { extra: { '@context': context }, proof: { '@context': [context[0]!] } });
    assert.equal(refusalOf(prefix, ACTOR, NOW_MS), 'proof_context_mismatch');
    const appended = clone(full);
    appended['@context'] = [...context, 'https://w3id.org/fep/c390'];
    assert.equal(refusalOf(appended, ACTOR, NOW_MS), 'proof_context_mismatch', 'an entry appended after signing');
    assert.equal(
      refusalOf(
        withProof(full, (p) => (p['@context'] = [context[1]!])),
        ACTOR,
        NOW_MS,
      ),
      'proof_context_mismatch',
    );
    assert.equal(
      refusalOf(
        withProof(full, (p) => (p['@context'] = [...context, 'https://w3id.org/fep/c390'])),
        ACTOR,
        NOW_MS,
      ),
      'proof_context_mismatch',
    );
    const reordered = clone(full);
    reordered['@context'] = [context[1]!, context[0]!];
    assert.equal(refusalOf(reordered, ACTOR, NOW_MS), 'proof_context_mismatch');
  });

  it('verifies a statement @context without a proof @context (Mitra signs without context injection)', () => {
    const key = freshKey();
    const signed = signStatement(key, { extra: { '@context': ['https://www.w3.org/ns/activitystreams'] } });
    assert.equal(refusalOf(signed, ACTOR, NOW_MS), 'ok');
    const changed = clone(signed);
    changed['@context'] = ['https://www.w3.org/ns/activitystreams', 'https://w3id.org/fep/c390'];
    assert.equal(refusalOf(changed, ACTOR, NOW_MS), 'signature_invalid', 'without a proof @context the statement @context is hashed as is');
  });

  it('refuses a proof made by another key than the subject as signature_invalid', () => {
    const signer = freshKey();
    const victim = freshKey();
    const statement = signStatement(signer);
    statement['subject'] = victim.did;
    proofOf(statement)['verificationMethod'] = victim.did;
    assert.equal(refusalOf(statement, ACTOR, NOW_MS), 'signature_invalid');
    assert.equal(ed25519DidKey(victim.publicKey), victim.did);
  });
});
