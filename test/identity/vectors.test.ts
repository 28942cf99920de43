// The published vectors (../shared/reference/identity-vectors.json): every valid one verifies, signing with the
// published key reproduces the published proofValues, the known-bad producer is refused, and the did:key vectors
// parse (Ed25519) or are refused by their decoded multicodec (everything else).
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { signDataIntegrityProof, verifyDataIntegrityProof } from '../../src/identity/data-integrity.js';
import { ed25519DidKey, parseEd25519DidKey } from '../../src/identity/did-key.js';
import { ed25519PublicKey, signEd25519 } from '../../src/identity/ed25519.js';
import { verifyIdentityStatement } from '../../src/identity/identity-statement.js';
import { jcs } from '../../src/identity/jcs.js';
import { encodeBase58btc } from '../../src/identity/multibase.js';
import { asJsonObject, clone, loadVectors, seedFromSecretKeyMultibase, type JsonRecord, type StatementVector } from './statement-fixtures.js';

const vectors = loadVectors();
const w3cKey = vectors.key_pairs['w3c-vc-di-eddsa-test-key'];
const w3cSeed = seedFromSecretKeyMultibase(w3cKey.secretKeyMultibase);
const VECTOR_TIME = Date.parse('2023-02-24T23:36:38Z');

function w3cPublicKey(): Uint8Array {
  const parsed = parseEd25519DidKey(w3cKey.did);
  assert.ok(parsed.ok);
  return parsed.publicKey;
}

function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

function validStatementVectors(): StatementVector[] {
  const valid = vectors.identity_statement_vectors.filter((v) => v.expected.startsWith('valid'));
  assert.equal(valid.length, 2, 'the reference has two valid identity statement vectors');
  return valid;
}

describe('identity statement vectors', () => {
  it('verifies both valid FEP-c390 vectors against their actor at their current_time', () => {
    for (const v of validStatementVectors()) {
      assert.ok(v.identity_proof && v.current_time, v.id);
      const verdict = verifyIdentityStatement(JSON.stringify(v.identity_proof), v.actor_id, Date.parse(v.current_time));
      assert.deepEqual(verdict, { ok: true, subject: w3cKey.did, expiresAtMs: null }, v.id);
    }
  });

  it('verifies the vectors as UTF-8 bytes and as pretty-printed text (hashing is over JCS, not the received layout)', () => {
    for (const v of validStatementVectors()) {
      const bytes = new TextEncoder().encode(JSON.stringify(v.identity_proof, null, 2));
      assert.equal(verifyIdentityStatement(bytes, v.actor_id, VECTOR_TIME).ok, true, v.id);
    }
  });

  it('reproduces each published proofValue by signing the claim with the secret key from secretKeyMultibase', () => {
    assert.deepEqual(ed25519PublicKey(w3cSeed), w3cPublicKey(), 'the secret key derives the published public key');
    for (const v of validStatementVectors()) {
      assert.ok(v.identity_claim && v.identity_proof && v.private_key, v.id);
      assert.deepEqual(seedFromSecretKeyMultibase(v.private_key), w3cSeed);
      const published = v.identity_proof['proof'] as JsonRecord;
      const options = { ...published };
      delete options['proofValue'];
      const signed = signDataIntegrityProof(asJsonObject(v.identity_claim), options, w3cSeed);
      assert.equal(signed.proof['proofValue'], published['proofValue'], v.id);
      assert.deepEqual(signed, v.identity_proof, v.id);
    }
  });

  it('signs the Mitra form (did#multibase method) to the proofValue of identity.md §8, and it verifies', () => {
    const claim = validStatementVectors()[0]!.identity_claim!;
    const options = {
      type: 'DataIntegrityProof',
      cryptosuite: 'eddsa-jcs-2022',
      created: '2023-02-24T23:36:38Z',
      verificationMethod: w3cKey.verification_method_id,
      proofPurpose: 'assertionMethod',
    };
    assert.equal(w3cKey.verification_method_id, `${w3cKey.did}#${w3cKey.publicKeyMultibase}`);
    const signed = signDataIntegrityProof(asJsonObject(claim), options, w3cSeed);
    const proofValue = signed.proof['proofValue'];
    assert.equal(typeof proofValue, 'string');
    assert.match(proofValue as string, /^zFQMTB8k[1-9A-HJ-NP-Za-km-z]+SMbpk$/);
    const verdict = verifyIdentityStatement(JSON.stringify(signed), 'https://server.example/users/alice', VECTOR_TIME);
    assert.deepEqual(verdict, { ok: true, subject: w3cKey.did, expiresAtMs: null });
  });

  it('matches the locally derived intermediates of identity.md §7 (canonical claim and its hash)', () => {
    const claim = validStatementVectors()[0]!.identity_claim!;
    const canonical = jcs(claim);
    assert.equal(
      canonical,
      '{"alsoKnownAs":"https://server.example/users/alice","subject":"did:key:z6MkrJVnaZkeFzdQyMZu1cgjg7k1pZZ6pvBQ7XJPt4swbTQ2","type":"VerifiableIdentityStatement"}',
    );
    assert.equal(sha256Hex(canonical!), '0444a02e12de463a0d37a97a2ef5067134bd87baf0c0b17d9b5761399dcdfac7');
    assert.equal(Buffer.from(w3cSeed).toString('hex'), 'c96ef9ea10c5e414c471723aff9de72c35fa5b70fae97e8832ecac7d2e2b8ed6');
    assert.equal(Buffer.from(w3cPublicKey()).toString('hex'), 'b00d8d938e7f773d51565aad36a623f5344f7f5d1960f9cf3e8e12620ea2810f');
  });
});

describe('generic eddsa-jcs-2022 vectors', () => {
  const policy = { purpose: 'assertionMethod', nowMs: VECTOR_TIME };

  function securedDocument(v: (typeof vectors.generic_eddsa_jcs_2022_vectors)[number]): JsonRecord {
    if (v.signed_document) return v.signed_document;
    assert.ok(v.unsigned_document && v.proof_options && v.proofValue, v.id);
    return { ...clone(v.unsigned_document), proof: { ...clone(v.proof_options), proofValue: v.proofValue } };
  }

  it('verifies every generic vector with the vc-di-eddsa test key', () => {
    assert.equal(vectors.generic_eddsa_jcs_2022_vectors.length, 5);
    for (const v of vectors.generic_eddsa_jcs_2022_vectors) {
      assert.ok(v.expected.startsWith('valid'), v.id);
      const checked = verifyDataIntegrityProof(asJsonObject(securedDocument(v)), w3cPublicKey(), policy);
      assert.equal(checked.ok, true, `${v.id}: ${checked.ok ? '' : checked.reason}`);
    }
  });

  it('recomputes the W3C canonical document, the three hashes and the signature with jcs and SHA-256', () => {
    const v = vectors.generic_eddsa_jcs_2022_vectors.find((g) => g.id === 'w3c-vc-di-eddsa-eddsa-jcs-2022-alumni');
    assert.ok(v?.unsigned_document && v.proof_options && v.proofValue);
    const canonicalDocument = jcs(v.unsigned_document);
    const canonicalOptions = jcs(v.proof_options);
    assert.ok(canonicalDocument !== null && canonicalOptions !== null);
    assert.equal(canonicalDocument, v.canonical_document);
    assert.equal(sha256Hex(canonicalDocument), v.document_hash_hex);
    assert.equal(canonicalOptions, v.canonical_proof_options);
    assert.equal(sha256Hex(canonicalOptions), v.proof_options_hash_hex);
    const combined = sha256Hex(canonicalOptions) + sha256Hex(canonicalDocument);
    assert.equal(combined, v.combined_hash_hex);
    const signature = signEd25519(w3cSeed, Buffer.from(combined, 'hex'));
    assert.equal(Buffer.from(signature).toString('hex'), v.signature_hex);
    assert.equal(encodeBase58btc(signature), v.proofValue);
    const signed = signDataIntegrityProof(asJsonObject(v.unsigned_document), asJsonObject(v.proof_options), w3cSeed);
    assert.equal(signed.proof['proofValue'], v.proofValue);
  });

  it('refuses each generic vector once the actor property of its document is set to another value', () => {
    for (const v of vectors.generic_eddsa_jcs_2022_vectors) {
      const doc = clone(securedDocument(v));
      doc['actor'] = 'https://server.example/users/mallory';
      const checked = verifyDataIntegrityProof(asJsonObject(doc), w3cPublicKey(), policy);
      assert.deepEqual(checked, { ok: false, reason: 'signature_invalid' }, v.id);
    }
  });
});

describe('known-bad producer vectors (pzingg/integrity_proofs)', () => {
  const bad = vectors.identity_statement_vectors.filter((v) => v.expected === 'invalid');
  const pzKey = vectors.key_pairs['pzingg-integrity-proofs-test-key'];

  it('has the two PZ vectors in the reference', () => {
    assert.deepEqual(
      bad.map((v) => v.id),
      ['pz-integrity-proofs-hidden-context-jcs-eddsa-2022', 'pz-integrity-proofs-hidden-context-eddsa-jcs-2022'],
    );
  });

  it('refuses both as emitted: the subject is a DID URL (#keys-1), not a did:key', () => {
    for (const v of bad) {
      const emitted = v.derived_locally_not_from_source!.statement_as_emitted_with_template_filled;
      assert.deepEqual(verifyIdentityStatement(JSON.stringify(emitted), v.actor_id, VECTOR_TIME), { ok: false, reason: 'subject_not_did_key' }, v.id);
    }
  });

  it('refuses both with the bare DID as subject: the #keys-1 verification method is neither allowed form', () => {
    for (const v of bad) {
      const derived = v.derived_locally_not_from_source!;
      const statement = clone(derived.statement_as_emitted_with_template_filled);
      statement['subject'] = derived.did_key_of_public_key_bytes;
      assert.deepEqual(
        verifyIdentityStatement(JSON.stringify(statement), v.actor_id, VECTOR_TIME),
        { ok: false, reason: 'verification_method_mismatch' },
        v.id,
      );
    }
  });

  it('does not verify with the standard algorithm, and reproduces only when the hidden @context is hashed', () => {
    const publicKey = Uint8Array.from(pzKey.public_key_bytes);
    const seed = Uint8Array.from(pzKey.private_key_bytes);
    assert.deepEqual(ed25519PublicKey(seed), publicKey);
    for (const v of bad) {
      const derived = v.derived_locally_not_from_source!;
      assert.equal(ed25519DidKey(publicKey), derived.did_key_of_public_key_bytes);
      const emitted = derived.statement_as_emitted_with_template_filled;
      const checked = verifyDataIntegrityProof(asJsonObject(emitted), publicKey, { purpose: 'assertionMethod', nowMs: VECTOR_TIME });
      assert.deepEqual(checked, { ok: false, reason: 'signature_invalid' }, v.id);
      // What the producer actually signed: the proof config with the actor's @context, the document without it.
      const document = clone(emitted);
      delete document['proof'];
      const config: JsonRecord = { ...clone(emitted['proof'] as JsonRecord), '@context': derived.hidden_context_hashed_by_producer };
      delete config['proofValue'];
      const hash = Buffer.concat([createHash('sha256').update(jcs(config)!).digest(), createHash('sha256').update(jcs(document)!).digest()]);
      assert.equal(encodeBase58btc(signEd25519(seed, hash)), v.proofValue, v.id);
    }
  });
});

describe('did:key vectors', () => {
  it('parses every valid Ed25519 did:key to a 32-byte key that encodes back to the same DID', () => {
    for (const { did, verification_method_id } of vectors.did_key_vectors.ed25519_valid) {
      const parsed = parseEd25519DidKey(did);
      assert.ok(parsed.ok, did);
      assert.equal(parsed.publicKey.length, 32);
      assert.equal(ed25519DidKey(parsed.publicKey), did);
      if (verification_method_id) assert.equal(verification_method_id, `${did}#${parsed.multibase}`);
    }
  });

  it('refuses every non-Ed25519 did:key as subject_not_ed25519, the X25519 one (also z6…) included', () => {
    const rejects = vectors.did_key_vectors.non_ed25519_reject;
    assert.equal(rejects.length, 7);
    for (const r of rejects) {
      const did = r.did ?? `did:key:${r.multibase_only}`;
      assert.deepEqual(parseEd25519DidKey(did), { ok: false, reason: 'subject_not_ed25519' }, r.key_type);
    }
    assert.ok(
      rejects.some((r) => r.multibase_only?.startsWith('z6')),
      'the X25519 vector starts z6 like an Ed25519 key',
    );
  });

  it('refuses a statement whose subject is a non-Ed25519 did:key, before any signature work', () => {
    const v = validStatementVectors()[0]!;
    for (const r of vectors.did_key_vectors.non_ed25519_reject) {
      const did = r.did ?? `did:key:${r.multibase_only}`;
      const statement = clone(v.identity_proof!);
      statement['subject'] = did;
      (statement['proof'] as JsonRecord)['verificationMethod'] = did;
      assert.deepEqual(verifyIdentityStatement(JSON.stringify(statement), v.actor_id, VECTOR_TIME), { ok: false, reason: 'subject_not_ed25519' }, r.key_type);
    }
  });
});
