// Every reason a signed document can be refused, with the sentence a client sees as error_description.
export const REFUSALS = {
  too_large: 'The statement is larger than 16384 bytes',
  malformed_json: 'The statement is not valid UTF-8 JSON',
  too_deep: 'The statement nests objects or arrays more than 32 levels deep',
  duplicate_keys: 'The statement repeats a property name (parsers would disagree on its value)',
  malformed_statement: 'The statement does not have the shape of a VerifiableIdentityStatement',
  wrong_type: 'The statement type must be the string VerifiableIdentityStatement',
  ld_signature_unsupported: 'Linked Data signatures are not supported; use a Data Integrity proof',
  actor_mismatch: 'alsoKnownAs must be exactly the actor ID',
  subject_not_did_key: 'The subject must be a did:key identifier without a fragment, path or query',
  subject_invalid_encoding: 'The subject is not valid base58btc multibase',
  subject_not_ed25519: 'The subject is not an Ed25519 key (multicodec 0xed)',
  subject_invalid_key_length: 'The subject key is not 32 bytes long',
  weak_key: 'The subject key is a small-order point and cannot be used',
  proof_missing: 'The statement has no proof object',
  proof_set_unsupported: 'Proof sets (an array of proofs) are not supported',
  proof_type_unsupported: 'The proof type must be DataIntegrityProof',
  cryptosuite_unsupported: 'The cryptosuite must be eddsa-jcs-2022 or jcs-eddsa-2022',
  proof_purpose_mismatch: 'The proof purpose must be assertionMethod',
  verification_method_mismatch: 'The verification method must be the subject DID or its #<multibase> fragment',
  proof_value_invalid: 'The proofValue must be a base58btc multibase value of a 64-byte signature',
  created_invalid: 'The proof created date is not a valid date-time with a time zone',
  expires_invalid: 'The proof expires date is not a valid date-time with a time zone',
  expired: 'The proof has expired',
  proof_context_mismatch: "The proof's @context does not match the start of the document's @context",
  jcs_failed: 'The statement cannot be canonicalized (lone surrogate or non-finite number)',
  signature_invalid: 'The signature does not verify',
  verification_error: 'The statement could not be verified',
} as const;

export type Refusal = keyof typeof REFUSALS;

export type Refused = { readonly ok: false; readonly reason: Refusal };

export function refuse(reason: Refusal): Refused {
  return { ok: false, reason };
}
