// Static resources and the about page: the default avatar/header images every Account entity points to.
import { deflateSync } from 'node:zlib';
import { PUBLIC, type Route, route } from '../http/types.js';
import type { WebDeps } from './deps.js';
import { html } from './html.js';
import { pageReply, VISITOR } from './layout.js';

function crc32(buf: Buffer): number {
  let c = ~0;
  for (const b of buf) {
    c ^= b;
    for (let k = 0; k < 8; k++) c = (c >>> 1) ^ (0xedb88320 & -(c & 1));
  }
  return ~c >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
}

/** A solid-colour PNG, generated once at start-up rather than shipped as a binary file. */
export function solidPng(width: number, height: number, rgb: [number, number, number]): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 2, 0, 0, 0], 8); // 8-bit RGB
  const row = Buffer.concat([Buffer.from([0]), Buffer.alloc(width * 3).map((_, i) => rgb[i % 3]!)]);
  const raw = Buffer.concat(Array.from({ length: height }, () => row));
  return Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), chunk('IHDR', ihdr), chunk('IDAT', deflateSync(raw)), chunk('IEND', Buffer.alloc(0))]);
}

export function staticPageRoutes(d: WebDeps): Route[] {
  const avatar = solidPng(64, 64, [0x9a, 0x9a, 0xb0]);
  const header = solidPng(300, 100, [0xd8, 0xd8, 0xe4]);
  const image = (body: Buffer) => () => ({ status: 200, headers: { 'Content-Type': 'image/png', 'Cache-Control': 'public, max-age=86400' }, body });
  const title = d.config.instance.title;
  return [
    { method: 'GET', path: '/avatars/original/missing.png', auth: PUBLIC, handler: image(avatar) },
    { method: 'GET', path: '/headers/original/missing.png', auth: PUBLIC, handler: image(header) },
    route({
      method: 'GET',
      path: '/about',
      auth: VISITOR,
      handler: async (_req, ctx) => {
        return pageReply(
          200,
          'About',
          html`<h1>${title}</h1><p>${d.config.instance.description}</p>
          <p>Handles on this server end in <strong>@${d.config.localDomain}</strong>.</p>
          ${d.config.instance.contactEmail ? html`<p>Contact: ${d.config.instance.contactEmail}</p>` : ''}
          <p>Registrations: ${d.config.registrations}.</p><p><a href="/">Home</a></p>`,
          title,
          ctx,
        );
      },
    }),
  ];
}
