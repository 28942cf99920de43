// The router's parametric matching where paths of one shape differ by method: GET /@:name/:id (a status's URL)
// beside POST /@:name/load_older (the remote profile's form), in either order of the table.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Router } from '../../src/http/router.js';
import { PUBLIC, type Route } from '../../src/http/types.js';

const handler = async () => ({ status: 204, body: '' });
const page: Route = { method: 'GET', path: '/@:name/:id', auth: PUBLIC, handler };
const form: Route = { method: 'POST', path: '/@:name/load_older', auth: PUBLIC, handler };

describe('router: one path shape, several methods', () => {
  for (const order of [
    [form, page],
    [page, form],
  ]) {
    it(`finds each route by its method (${order.map((r) => r.method).join(' then ')})`, () => {
      const router = new Router();
      for (const r of order) router.add(r);
      const post = router.match('POST', '/@someone@example.test/load_older');
      assert.equal(post.kind === 'found' && post.route, form);
      assert.deepEqual(post.kind === 'found' && post.params, { name: 'someone@example.test' });
      const get = router.match('GET', '/@ann/123');
      assert.equal(get.kind === 'found' && get.route, page);
      assert.deepEqual(get.kind === 'found' && get.params, { name: 'ann', id: '123' });
      // GET of the form's path is the page's route (an id that is no id: its handler's 404), HEAD too.
      const head = router.match('HEAD', '/@ann/load_older');
      assert.equal(head.kind === 'found' && head.route, page);
      // A method neither has: 405 naming what both allow.
      const put = router.match('PUT', '/@ann/load_older');
      assert.equal(put.kind, 'method');
      assert.deepEqual(put.kind === 'method' && [...put.allowed].sort(), ['GET', 'HEAD', 'POST']);
      assert.equal(router.match('DELETE', '/@ann/123').kind, 'method');
      assert.equal(router.match('GET', '/@ann/123/more').kind, 'none');
      assert.equal(router.match('GET', '/ann/123').kind, 'none');
    });
  }
});
