// Ed25519 did:key parsing (multicodec ed 01 + 32 bytes, told apart by decoded bytes) and strict base58btc multibase.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ed25519DidKey, parseEd25519DidKey } from '../../src/identity/did-key.js';
import { decodeBase58btc, encodeBase58btc } from '../../src/identity/multibase.js';
import { freshKey } from './statement-fixtures.js';

function didOf(bytes: number[]): string {
  return `did:key:${encodeBase58btc(Uint8Array.from(bytes))}`;
}

const KEY = new Array<number>(32).fill(0x5a);

describe('parseEd25519DidKey', () => {
  it('round-trips fresh keys: encode, parse, same 32 bytes and multibase, always z6Mk…', () => {
    for (let i = 0; i < 50; i++) {
      const key = freshKey();
      assert.ok(key.did.startsWith('did:key:z6Mk'), key.did);
      const parsed = parseEd25519DidKey(key.did);
      assert.ok(parsed.ok);
      assert.deepEqual(parsed.publicKey, key.publicKey);
      assert.equal(parsed.multibase, key.multibase);
    }
  });

  it('tells key types apart by the decoded multicodec: X25519 (ec 01) is refused although it also starts z6', () => {
    const x25519 = didOf([0xec, 0x01, ...KEY]);
    assert.ok(x25519.startsWith('did:key:z6'));
    assert.deepEqual(parseEd25519DidKey(x25519), { ok: false, reason: 'subject_not_ed25519' });
    for (const prefix of [
      [0xe7, 0x01],
      [0x80, 0x24],
      [0x12, 0x00],
      [0x00, 0xed],
    ]) {
      assert.deepEqual(parseEd25519DidKey(didOf([...prefix, ...KEY])), { ok: false, reason: 'subject_not_ed25519' }, prefix.join(','));
    }
  });

  it('refuses a non-minimal varint spelling of 0xed (ed 81 00) as subject_not_ed25519', () => {
    assert.deepEqual(parseEd25519DidKey(didOf([0xed, 0x81, 0x00, ...KEY.slice(1)])), { ok: false, reason: 'subject_not_ed25519' });
  });

  it('refuses a truncated varint and one-byte values as subject_invalid_encoding', () => {
    for (const bytes of [[0xed], [0x80, 0x80], [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]]) {
      assert.deepEqual(parseEd25519DidKey(didOf(bytes)), { ok: false, reason: 'subject_invalid_encoding' }, bytes.join(','));
    }
  });

  it('refuses wrong key lengths after ed 01 as subject_invalid_key_length', () => {
    for (const length of [1, 16, 31, 33, 57]) {
      assert.deepEqual(
        parseEd25519DidKey(didOf([0xed, 0x01, ...new Array<number>(length).fill(3)])),
        { ok: false, reason: 'subject_invalid_key_length' },
        String(length),
      );
    }
  });

  it('refuses the identity point as weak_key', () => {
    assert.deepEqual(parseEd25519DidKey(didOf([0xed, 0x01, 1, ...new Array<number>(31).fill(0)])), { ok: false, reason: 'weak_key' });
  });

  it('refuses anything that is not exactly did:key:z<base58> as subject_not_did_key', () => {
    const { did, multibase } = freshKey();
    for (const text of [
      `${did}#${multibase}`,
      `did:key:1:${multibase}`,
      `did:key:m${multibase.slice(1)}`,
      `did:web:${multibase}`,
      `${did} `,
      `did:key:${multibase.slice(0, 5)}0${multibase.slice(6)}`,
      '',
    ]) {
      assert.deepEqual(parseEd25519DidKey(text), { ok: false, reason: 'subject_not_did_key' }, text);
    }
  });
});

describe('decodeBase58btc', () => {
  it('decodes what encodeBase58btc encodes, leading zero bytes included', () => {
    for (const bytes of [[0], [0, 0, 1], [0xed, 0x01], new Array<number>(64).fill(0xff), [0, 0, 0, ...KEY]]) {
      const text = encodeBase58btc(Uint8Array.from(bytes));
      assert.deepEqual(decodeBase58btc(text, 200), Uint8Array.from(bytes));
    }
  });

  it('refuses values longer than maxChars before decoding', () => {
    const text = encodeBase58btc(new Uint8Array(64).fill(7));
    assert.ok(decodeBase58btc(text, text.length));
    assert.equal(decodeBase58btc(text, text.length - 1), null);
  });

  it('refuses other multibase prefixes, characters outside the alphabet and an empty value', () => {
    const text = encodeBase58btc(new Uint8Array(8).fill(9));
    for (const bad of [
      text.slice(1),
      `Z${text.slice(1)}`,
      `m${text.slice(1)}`,
      `${text}0`,
      `${text}O`,
      `${text}I`,
      `${text}l`,
      `${text}+`,
      `${text} `,
      'z',
      '',
    ]) {
      assert.equal(decodeBase58btc(bad, 100), null, bad);
    }
  });

  it('gives the same bytes as the did:key encoder for a known vector', () => {
    const parsed = parseEd25519DidKey('did:key:z6MkrJVnaZkeFzdQyMZu1cgjg7k1pZZ6pvBQ7XJPt4swbTQ2');
    assert.ok(parsed.ok);
    assert.equal(Buffer.from(parsed.publicKey).toString('hex'), 'b00d8d938e7f773d51565aad36a623f5344f7f5d1960f9cf3e8e12620ea2810f');
    assert.equal(ed25519DidKey(parsed.publicKey), 'did:key:z6MkrJVnaZkeFzdQyMZu1cgjg7k1pZZ6pvBQ7XJPt4swbTQ2');
  });
});
