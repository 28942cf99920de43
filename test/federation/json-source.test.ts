// elementTexts: the source text of a document's array items, exactly as written, for statements kept in their
// original form. Every expectation is checked against JSON.parse of the same text.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { elementTexts } from '../../src/federation/json-source.js';

/** The texts found must parse to exactly the items JSON.parse sees at that path. */
function agreesWithParse(text: string, path: string[]): string[] | undefined {
  const texts = elementTexts(text, path);
  let at: unknown = JSON.parse(text);
  for (const k of path) at = (at as Record<string, unknown> | undefined)?.[k];
  if (texts !== undefined) {
    const items = Array.isArray(at) ? at : typeof at === 'object' && at !== null ? [at] : [];
    assert.deepEqual(
      texts.map((t) => JSON.parse(t)),
      items,
    );
  } else {
    assert.equal(at, undefined);
  }
  return texts;
}

describe('elementTexts', () => {
  it('returns each item of the array at the path as written, whitespace, escapes and number forms included', () => {
    const text = '{ "id" : "x",\n  "attachment" : [ {"b":1.0,"a":"\\u0041\\/"} ,\n\t"s", 12e1, null, [1, [2]], {"k": "]}\\"{["} ] }';
    assert.deepEqual(agreesWithParse(text, ['attachment']), ['{"b":1.0,"a":"\\u0041\\/"}', '"s"', '12e1', 'null', '[1, [2]]', '{"k": "]}\\"{["}']);
  });

  it('follows a path of keys and treats a single object there as one item', () => {
    const text = '{"type":"Update","object":{"id":"a","attachment":{"type":"VerifiableIdentityStatement", "x": [ ]}}}';
    assert.deepEqual(agreesWithParse(text, ['object', 'attachment']), ['{"type":"VerifiableIdentityStatement", "x": [ ]}']);
  });

  it('takes the last of repeated keys, as JSON.parse does', () => {
    const text = '{"attachment":[{"n":1}],"attachment":[{"n":2},{"n":3}]}';
    assert.deepEqual(agreesWithParse(text, ['attachment']), ['{"n":2}', '{"n":3}']);
  });

  it('does not mistake a key with the same name deeper down or inside a string for the one asked for', () => {
    const text = '{"other":{"attachment":[1]},"note":"\\"attachment\\":[2]","attachment":[3]}';
    assert.deepEqual(agreesWithParse(text, ['attachment']), ['3']);
    assert.deepEqual(agreesWithParse('{"other":{"attachment":[1]}}', ['attachment']), undefined);
  });

  it('answers [] for a value that is not an object or array, and undefined where the path leads through one', () => {
    assert.deepEqual(agreesWithParse('{"attachment":"text"}', ['attachment']), []);
    assert.deepEqual(agreesWithParse('{"attachment":[]}', ['attachment']), []);
    assert.equal(elementTexts('{"object":"https://x"}', ['object', 'attachment']), undefined);
    assert.equal(elementTexts('[{"attachment":[1]}]', ['attachment']), undefined);
  });

  it('skips deeply nested values without recursion and answers undefined for text that is not JSON', () => {
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    assert.deepEqual(elementTexts(`{"a":${deep},"attachment":[true]}`, ['attachment']), ['true']);
    for (const bad of ['', '{', '{"attachment":[1,}', '{"attachment" [1]}', '{"attachment":["x]}', 'nul']) {
      assert.equal(elementTexts(bad, ['attachment']), undefined, bad);
    }
  });
});
