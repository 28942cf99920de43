// The domain a member blocks (store/account-domain-blocks.ts memberBlockDomain), as Mastodon normalises and validates
// it: fixed cases, and properties over any text a client may send.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { memberBlockDomain } from '../../src/store/account-domain-blocks.js';

const VALID = /^[a-z0-9-]{1,63}(\.[a-z0-9-]{1,63})*(:\d{1,5})?$/;

describe('memberBlockDomain', () => {
  it('normalises as Mastodon’s DomainNormalizable and refuses what its DomainValidator refuses', () => {
    const cases: [string, string | null][] = [
      ['Example.COM', 'example.com'],
      ['  example.com.  ', 'example.com'],
      ['bücher.example', 'xn--bcher-kva.example'],
      ['127.0.0.1:3000', '127.0.0.1:3000'],
      ['', ''],
      ['   ', ''],
      ['*.example.com', null],
      ['https://example.com', null],
      ['example.com/path', null],
      ['user@example.com', null],
      ['under_score.example', null],
      [`${'a'.repeat(64)}.example`, null],
      ['a..b', null],
    ];
    for (const [input, expected] of cases) assert.equal(memberBlockDomain(input), expected, JSON.stringify(input));
  });

  it('gives, for any text, a blank, a refusal or a valid normalised domain that normalises to itself', () => {
    const text = fc.oneof(
      fc.string({ maxLength: 80 }),
      fc.string({ unit: 'grapheme', maxLength: 40 }),
      fc.array(fc.stringMatching(/^[A-Za-z0-9*_-]{0,12}$/), { minLength: 1, maxLength: 5 }).map((labels) => labels.join('.')),
    );
    fc.assert(
      fc.property(text, (input) => {
        const out = memberBlockDomain(input);
        if (out === null || out === '') return;
        assert.match(out, VALID, JSON.stringify(input));
        assert.equal(memberBlockDomain(out), out, `not stable: ${JSON.stringify(input)} → ${out}`);
      }),
      { seed: 36, numRuns: 2000 },
    );
  });
});
