import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { safeReturnTo } from '../../src/web/session.js';

describe('return_to after sign-in', () => {
  it('keeps local paths', () => {
    assert.equal(safeReturnTo('/oauth/authorize?client_id=x&scope=read%20write'), '/oauth/authorize?client_id=x&scope=read%20write');
    assert.equal(safeReturnTo('/about'), '/about');
  });
  for (const bad of [
    '//evil.example',
    '/\\evil.example',
    '/\t/evil.example',
    '/\r\nSet-Cookie: x=1',
    'https://evil.example',
    'evil',
    '/\\/evil',
    '/ space',
    '/caf\u00e9',
    undefined,
    42,
  ]) {
    it(`refuses ${JSON.stringify(bad)}`, () => assert.equal(safeReturnTo(bad), '/'));
  }
});
