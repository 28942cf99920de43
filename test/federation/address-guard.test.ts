import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { classifyAddress, isAllowedAddress, unwrapMapped, type AddressClass } from '../../src/federation/address-guard.js';

const NONE = { allow: [] };
const LOOPBACK = { allow: ['127.0.0.0/8', '::1/128'] };

const REFUSED = [
  '127.0.0.1',
  '::1',
  '10.0.0.1',
  '172.16.0.1',
  '172.31.255.255',
  '192.168.1.1',
  '169.254.169.254',
  'fc00::1',
  'fd12::1',
  'fe80::1',
  '::ffff:127.0.0.1',
  '::ffff:7f00:1',
  '0.0.0.0',
  '::',
  '224.0.0.1',
  'ff02::1',
  '100.64.0.1',
  // and the rest of the non-public table
  '0.1.2.3',
  '192.0.0.8',
  '192.0.2.1',
  '198.18.0.1',
  '198.19.255.255',
  '198.51.100.7',
  '203.0.113.9',
  '240.0.0.1',
  '255.255.255.255',
  '2001:db8::1',
  '64:ff9b::7f00:1',
  '::ffff:10.1.2.3',
  '::ffff:a9fe:a9fe',
  '0:0:0:0:0:ffff:c0a8:101',
  '::7f00:1',
  'fec0::1',
  '4000::1',
];
const ALLOWED = ['8.8.8.8', '1.1.1.1', '2606:4700::1111', '172.32.0.1', '93.184.216.34', '::ffff:8.8.8.8', '100.128.0.1'];

describe('address guard', () => {
  for (const ip of REFUSED) {
    it(`refuses ${ip} when no private range is allowed`, () => {
      assert.equal(isAllowedAddress(ip, NONE), false);
      assert.notEqual(classifyAddress(ip), 'public');
    });
  }

  for (const ip of ALLOWED) {
    it(`allows the public address ${ip}`, () => {
      assert.equal(classifyAddress(ip), 'public');
      assert.equal(isAllowedAddress(ip, NONE), true);
    });
  }

  it('names the class of each kind of address', () => {
    const table: [string, AddressClass][] = [
      ['127.0.0.1', 'loopback'],
      ['::1', 'loopback'],
      ['::ffff:7f00:1', 'loopback'],
      ['10.0.0.1', 'private'],
      ['100.64.0.1', 'private'],
      ['169.254.169.254', 'link_local'],
      ['fe80::1', 'link_local'],
      ['fd12::1', 'unique_local'],
      ['224.0.0.1', 'multicast'],
      ['ff02::1', 'multicast'],
      ['0.0.0.0', 'unspecified'],
      ['::', 'unspecified'],
      ['::ffff:0.0.0.0', 'unspecified'],
      ['192.0.2.1', 'reserved'],
      ['8.8.8.8', 'public'],
    ];
    for (const [ip, cls] of table) assert.equal(classifyAddress(ip), cls, ip);
  });

  it('allows loopback, in both IPv4-mapped spellings, when the policy allows loopback, and still refuses 10.0.0.1', () => {
    for (const ip of ['127.0.0.1', '127.5.6.7', '::1', '::ffff:127.0.0.1', '::ffff:7f00:1']) {
      assert.equal(isAllowedAddress(ip, LOOPBACK), true, ip);
    }
    for (const ip of ['10.0.0.1', '::ffff:10.0.0.1', '192.168.1.1', 'fe80::1', '::2', '0.0.0.0']) {
      assert.equal(isAllowedAddress(ip, LOOPBACK), false, ip);
    }
  });

  it('allows exactly the ranges listed, IPv6 ranges included', () => {
    const policy = { allow: ['10.1.0.0/16', 'fd00::/8'] };
    assert.equal(isAllowedAddress('10.1.2.3', policy), true);
    assert.equal(isAllowedAddress('10.2.0.1', policy), false);
    assert.equal(isAllowedAddress('fd12::1', policy), true);
    assert.equal(isAllowedAddress('fc00::1', policy), false);
  });

  it('refuses anything that is not an IP address, whatever the policy', () => {
    for (const s of ['localhost', '', '127.1', '1.2.3.4.5', '[::1]']) {
      assert.equal(classifyAddress(s), 'reserved', s);
      assert.equal(isAllowedAddress(s, { allow: ['0.0.0.0/0', '::/0'] }), false, s);
    }
    assert.equal(isAllowedAddress('fe80::1%eth0', NONE), false, 'a zone id does not hide a link-local address');
  });

  it('unwraps IPv4-mapped addresses written in hex or dotted form', () => {
    assert.equal(unwrapMapped('::ffff:7f00:1'), '127.0.0.1');
    assert.equal(unwrapMapped('::FFFF:192.168.1.1'), '192.168.1.1');
    assert.equal(unwrapMapped('0:0:0:0:0:ffff:a9fe:a9fe'), '169.254.169.254');
    assert.equal(unwrapMapped('::7f00:1'), undefined);
    assert.equal(unwrapMapped('127.0.0.1'), undefined);
  });
});
