import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isUploadedFile, parseUrlEncoded } from '../../src/http/params.js';
import { isId } from '../../src/store/ids.js';

describe('Rails-style parameters', () => {
  it('decode arrays and nested objects', () => {
    const p = parseUrlEncoded('a[]=1&a[]=2&poll[options][]=x&poll[expires_in]=60&fields_attributes[0][name]=n');
    assert.deepEqual(JSON.parse(JSON.stringify(p)), { a: ['1', '2'], poll: { options: ['x'], expires_in: '60' }, fields_attributes: { '0': { name: 'n' } } });
  });

  it('fill one object per array element from a[][key] pairs, as Rails does', () => {
    const p = parseUrlEncoded(
      'media_attributes[][id]=1&media_attributes[][description]=one&media_attributes[][id]=2&media_attributes[][focus]=0,0&a[][b][]=1&a[][b][]=2',
    );
    assert.deepEqual(JSON.parse(JSON.stringify(p)), {
      media_attributes: [
        { id: '1', description: 'one' },
        { id: '2', focus: '0,0' },
      ],
      a: [{ b: ['1', '2'] }],
    });
  });

  it('never reach Object.prototype', () => {
    const p = parseUrlEncoded('a[__proto__][polluted]=1&__proto__[x]=1&b[constructor][prototype][y]=1&c[d][__proto__]=1&__proto__=1');
    assert.equal(({} as Record<string, unknown>)['polluted'], undefined);
    assert.equal(({} as Record<string, unknown>)['x'], undefined);
    assert.equal(({} as Record<string, unknown>)['y'], undefined);
    assert.equal(Object.getPrototypeOf(p), null);
    assert.equal(Object.getPrototypeOf(parseUrlEncoded('c[d]=1')['c']), null);
  });

  it('cannot forge an uploaded file from form fields', () => {
    const p = parseUrlEncoded('f[kind]=file&f[data]=abc&f[filename]=x.png');
    assert.equal(isUploadedFile(p['f']), false);
  });
});

describe('ids', () => {
  it('accept only bigint-sized decimal strings', () => {
    assert.equal(isId('117653969077665795'), true);
    assert.equal(isId('9223372036854775807'), true);
    assert.equal(isId('9223372036854775808'), false);
    assert.equal(isId('9999999999999999999'), false);
    assert.equal(isId('12a'), false);
    assert.equal(isId(''), false);
  });
});
