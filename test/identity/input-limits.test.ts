// What the verifier does with the raw input before the statement's fields: the 16 KiB limit on received bytes
// (checked before parsing), UTF-8 and JSON errors, and documents JCS cannot canonicalize (RFC 8785 §3.2.2).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MAX_STATEMENT_BYTES, verifyIdentityStatement } from '../../src/identity/identity-statement.js';
import { jcs } from '../../src/identity/jcs.js';
import { ACTOR, NOW_MS, freshKey, signStatement, type Json, type TestKey } from './statement-fixtures.js';

const key = freshKey();
const encoder = new TextEncoder();

/** Valid signed statement text of exactly `bytes` UTF-8 bytes: a signed padding property, then trailing spaces. */
function statementOfSize(signer: TestKey, bytes: number): string {
  const bare = JSON.stringify(signStatement(signer, { extra: { padding: '' } }));
  // proofValue is 87 or 88 characters, so leave a little room and top up with JSON whitespace.
  const text = JSON.stringify(signStatement(signer, { extra: { padding: 'p'.repeat(bytes - bare.length - 4) } }));
  assert.ok(Buffer.byteLength(text) <= bytes);
  return text + ' '.repeat(bytes - Buffer.byteLength(text));
}

function reasonOf(input: Uint8Array | string): string {
  const verdict = verifyIdentityStatement(input, ACTOR, NOW_MS);
  return verdict.ok ? 'ok' : verdict.reason;
}

describe('statement size limit', () => {
  it('is 16384 bytes', () => {
    assert.equal(MAX_STATEMENT_BYTES, 16_384);
  });

  it('accepts a valid statement of exactly 16384 bytes, as text and as bytes', () => {
    const text = statementOfSize(key, 16_384);
    assert.equal(Buffer.byteLength(text), 16_384);
    assert.equal(reasonOf(text), 'ok');
    assert.equal(reasonOf(encoder.encode(text)), 'ok');
  });

  it('refuses the same statement with one more byte of whitespace as too_large', () => {
    const text = `${statementOfSize(key, 16_384)} `;
    assert.equal(reasonOf(text), 'too_large');
    assert.equal(reasonOf(encoder.encode(text)), 'too_large');
  });

  it('refuses 16385 bytes that are not even JSON (or not UTF-8) as too_large, before parsing', () => {
    assert.equal(reasonOf('{'.repeat(16_385)), 'too_large');
    assert.equal(reasonOf(new Uint8Array(16_385).fill(0xff)), 'too_large');
    assert.equal(reasonOf('x'.repeat(10_000_000)), 'too_large');
  });

  it('measures text in UTF-8 bytes, not UTF-16 code units', () => {
    // 6000 snowmen: 6000 code units but 18000 UTF-8 bytes.
    const text = JSON.stringify(signStatement(key, { extra: { padding: '\u2603'.repeat(6000) } }));
    assert.ok(text.length < 16_384);
    assert.equal(reasonOf(text), 'too_large');
    assert.equal(reasonOf(encoder.encode(text)), 'too_large');
  });

  it('measures a byte view by its own length, not its underlying buffer', () => {
    const text = JSON.stringify(signStatement(key));
    const big = new Uint8Array(40_000).fill(0x20);
    big.set(encoder.encode(text), 1000);
    assert.equal(reasonOf(big.subarray(1000, 1000 + Buffer.byteLength(text))), 'ok');
  });
});

describe('statement JSON decoding', () => {
  it('refuses invalid UTF-8 bytes as malformed_json even inside a string value', () => {
    const bytes = encoder.encode(JSON.stringify(signStatement(key, { extra: { note: 'AB' } })));
    const at = Buffer.from(bytes).indexOf('AB');
    for (const bad of [[0xff], [0xc3], [0xed, 0xa0, 0x80], [0xc0, 0xaf]]) {
      const corrupted = Buffer.concat([bytes.subarray(0, at), Buffer.from(bad), bytes.subarray(at + 2)]);
      assert.equal(reasonOf(new Uint8Array(corrupted)), 'malformed_json', Buffer.from(bad).toString('hex'));
    }
  });

  it('refuses text that is not JSON as malformed_json', () => {
    const text = JSON.stringify(signStatement(key));
    for (const bad of ['', ' ', text.slice(0, -1), `${text},`, `${text}}`, `{'type':'x'}`, 'undefined', 'NaN', text.replace('{', '{,')]) {
      assert.equal(reasonOf(bad), 'malformed_json', bad.slice(0, 20));
    }
  });

  it('refuses a repeated property name, at any depth, as duplicate_keys (parsers disagree on which one counts)', () => {
    const text = JSON.stringify(signStatement(key, { extra: { nested: { a: 1, b: [{ c: 2 }] } } }));
    const cases = [
      text.replace('{', '{"alsoKnownAs":"https://victim.example/users/bob",'),
      text.replace('"proof":{', '"proof":{"proofPurpose":"authentication",'),
      text.replace('"a":1', '"a":1,"a":1'),
      text.replace('"c":2', '"c":2,"c":3'),
      text.replace('{', '{"type" : "VerifiableIdentityStatement" ,'),
    ];
    for (const bad of cases) {
      assert.notEqual(bad, text);
      assert.equal(reasonOf(bad), 'duplicate_keys', bad.slice(0, 60));
    }
  });

  it('does not mistake colons, quotes and backslashes inside strings, or a name reused at another depth, for duplicates', () => {
    const tricky = { note: 'a:b "c:d" \\: \\"e:f\\"', 'odd:name': ':', nested: { note: 'again', type: 'not the statement type' } };
    assert.equal(reasonOf(JSON.stringify(signStatement(key, { extra: tricky }))), 'ok');
    assert.equal(reasonOf(JSON.stringify(signStatement(key, { extra: tricky }), null, 1)), 'ok');
  });

  it('refuses a UTF-8 byte order mark before the JSON as malformed_json', () => {
    const text = JSON.stringify(signStatement(key));
    assert.equal(reasonOf(new Uint8Array([0xef, 0xbb, 0xbf, ...encoder.encode(text)])), 'malformed_json');
  });

  it('accepts escaped and unescaped spellings of the same signed text, and key order changes', () => {
    const signed = signStatement(key, { extra: { note: 'caf\u00e9 \u2603 \ud83d\ude00', n: 1000 } });
    const text = JSON.stringify(signed);
    assert.equal(reasonOf(text), 'ok');
    const escaped = text.replace('caf\u00e9 \u2603 \ud83d\ude00', 'caf\\u00e9 \\u2603 \\ud83d\\ude00').replace('"n":1000', '"n":1.0e3');
    assert.notEqual(escaped, text);
    assert.equal(reasonOf(escaped), 'ok');
    const reordered = JSON.stringify(Object.fromEntries(Object.entries(signed).reverse()), null, '\t');
    assert.equal(reasonOf(reordered), 'ok');
  });
});

describe('documents JCS refuses', () => {
  it('refuses a lone surrogate escaped in a signed statement property as jcs_failed', () => {
    const text = JSON.stringify(signStatement(key, { extra: { note: 'SURROGATE' } })).replace('SURROGATE', '\\ud800');
    assert.equal(reasonOf(text), 'jcs_failed');
    assert.equal(reasonOf(encoder.encode(text)), 'jcs_failed');
    assert.equal(reasonOf(text.replace('\\ud800', '\\udfff')), 'jcs_failed');
  });

  it('refuses a lone surrogate in a proof property or in a property name as jcs_failed', () => {
    const inProof = JSON.stringify(signStatement(key, { proof: { nonce: 'SURROGATE' } })).replace('SURROGATE', 'x\\udc00y');
    assert.equal(reasonOf(inProof), 'jcs_failed');
    const inName = JSON.stringify(signStatement(key, { extra: { SURROGATE: 1 } })).replace('SURROGATE', '\\ud83d');
    assert.equal(reasonOf(inName), 'jcs_failed');
  });

  it('refuses a number JSON.parse turns into Infinity (1e999) as jcs_failed', () => {
    const text = JSON.stringify(signStatement(key, { extra: { n: 12345 } }));
    assert.equal(reasonOf(text.replace('12345', '1e999')), 'jcs_failed');
    assert.equal(reasonOf(text.replace('12345', '-1e999')), 'jcs_failed');
  });

  it('refuses nesting deeper than 32 levels as too_deep, the same way every time, up to what 16 KiB allows', () => {
    for (const depth of [32, 7900]) {
      // inside the statement object: 33 levels and more
      const text = JSON.stringify(signStatement(key, { extra: { deep: 'DEEP' } })).replace('"DEEP"', '['.repeat(depth) + ']'.repeat(depth));
      assert.ok(Buffer.byteLength(text) <= 16_384);
      for (let i = 0; i < 3; i++) assert.equal(reasonOf(text), 'too_deep', `depth ${depth}`);
    }
  });

  it('accepts a signed statement nested exactly 32 levels deep', () => {
    let inner: Json = 'leaf';
    for (let i = 0; i < 31; i++) inner = [inner]; // the statement object, then 31 arrays: 32 levels
    const statement = signStatement(key, { extra: { deep: inner } });
    assert.equal(reasonOf(JSON.stringify(statement)), 'ok');
  });

  it('jcs returns null for a document nested far beyond the stack instead of throwing', () => {
    const root: Record<string, unknown> = {};
    let node = root;
    for (let i = 0; i < 200_000; i++) {
      const child: Record<string, unknown> = {};
      node['a'] = child;
      node = child;
    }
    assert.equal(jcs(root), null);
  });

  it('jcs returns null rather than throwing for lone surrogates, NaN, Infinity and non-JSON values', () => {
    for (const value of ['\ud800', { a: '\udfff' }, { ['\ud800']: 1 }, NaN, Infinity, -Infinity, [1, NaN], 1n, () => 1, undefined]) {
      assert.equal(jcs(value), null, String(value));
    }
  });

  it('jcs sorts keys by UTF-16 code units and serializes numbers as ECMAScript does (RFC 8785 §3.2)', () => {
    assert.equal(jcs({ b: 1, a: 2, A: 3, '\u20ac': 4, '\ud83d\ude00': 5, '\ufb33': 6 }), '{"A":3,"a":2,"b":1,"\u20ac":4,"\ud83d\ude00":5,"\ufb33":6}');
    // biome-ignore lint/correctness/noPrecisionLoss: 4.5e-324 rounds to the smallest subnormal on purpose (RFC 8785's vector)
    assert.equal(jcs([1e21, 1e-7, 0.1, -0, 100, 4.5e-324]), '[1e+21,1e-7,0.1,0,100,5e-324]');
    assert.equal(jcs({ s: '\u0000\u001f"\\/\u2028' }), '{"s":"\\u0000\\u001f\\"\\\\/\u2028"}');
  });
});
