// A post as a profile page or search results show it: its author (linked to their profile page), content warning,
// content, media and poll, from the Mastodon status entity (remote content was reduced to safe HTML when stored, so
// it is inserted as it is); a boost names the booster and the boosted post's author.
import { z } from 'zod';
import { html, Html } from './html.js';

/** The parts of a status entity the page reads (media and poll are read through the schemas below). */
export interface PostEntity {
  readonly id: string;
  readonly created_at: string;
  readonly content: string;
  readonly spoiler_text: string;
  readonly url?: string | null;
  readonly media_attachments: readonly unknown[];
  readonly poll: unknown;
  readonly reblog: unknown;
  readonly account: unknown;
}

const Author = z.object({ acct: z.string(), username: z.string(), display_name: z.string() });

/** An account's page here: `/@name@host` for a remote account (web/remote-profile-page.ts), `/@name` for ours. */
export function profilePath(acct: string): string {
  return `/@${acct}`;
}

/** An account entity's name linked to its profile page, then its handle. */
export function authorHtml(account: unknown, cls = 'author'): Html {
  const a = Author.safeParse(account);
  if (!a.success) return html``;
  return html`<a class="${cls}" href="${profilePath(a.data.acct)}">${a.data.display_name || a.data.username}</a> <span class="acct">@${a.data.acct}</span>`;
}

const Attachment = z.object({
  type: z.string(),
  url: z.string().nullable(),
  preview_url: z.string().nullable().optional(),
  description: z.string().nullable().optional(),
});

const Poll = z.object({
  expired: z.boolean(),
  votes_count: z.number().nullable(),
  options: z.array(z.object({ title: z.string(), votes_count: z.number().nullable() })),
});

const Reblog = z.object({
  id: z.string(),
  url: z.string().nullable().optional(),
  created_at: z.string(),
  content: z.string(),
  spoiler_text: z.string(),
  media_attachments: z.array(z.unknown()),
  poll: z.unknown(),
  account: z.unknown(),
});

function mediaHtml(items: readonly unknown[]): Html {
  const list = items.flatMap((m) => {
    const p = Attachment.safeParse(m);
    return p.success ? [p.data] : [];
  });
  if (list.length === 0) return html``;
  return html`<div class="media">${list.map((m) => {
    const alt = m.description ?? '';
    const src = m.preview_url ?? m.url;
    if ((m.type === 'image' || m.type === 'gifv') && src) return html`<img src="${src}" alt="${alt}" loading="lazy">`;
    return html`<a class="attachment" href="${m.url ?? '#'}">${m.type}${alt ? `: ${alt}` : ''}</a>`;
  })}</div>`;
}

function pollHtml(poll: unknown): Html {
  const p = Poll.safeParse(poll);
  if (!p.success) return html``;
  return html`<ul class="poll">${p.data.options.map(
    (o) => html`<li>${o.title}${o.votes_count === null ? '' : html` <span class="votes">(${o.votes_count})</span>`}</li>`,
  )}</ul><p class="poll-state">${p.data.expired ? 'Poll closed' : 'Poll open'}${p.data.votes_count === null ? '' : ` · ${p.data.votes_count} votes`}</p>`;
}

function body(p: { content: string; spoiler_text: string; media_attachments: readonly unknown[]; poll: unknown }): Html {
  const inner = html`<div class="content">${new Html(p.content)}</div>${mediaHtml(p.media_attachments)}${pollHtml(p.poll)}`;
  return p.spoiler_text ? html`<details class="cw"><summary>${p.spoiler_text}</summary>${inner}</details>` : inner;
}

/** A post as lists show it (a profile's, search results). */
export function postHtml(p: PostEntity): Html {
  return post(p, null);
}

/**
 * Posts linked to their pages, for the lists of this server's public pages (`base`: BASE_URL): a local post's link is
 * its own URL's path (/@name/id, web/public-status-page.ts), any other post's /web/statuses/:id.
 */
export function linkedPostHtml(base: string): (p: PostEntity) => Html {
  return (p) => post(p, base);
}

/** The path of a post's page here (see linkedPostHtml). */
export function postPath(p: { id: string; url?: string | null }, base: string): string {
  return p.url?.startsWith(`${base}/@`) ? p.url.slice(base.length) : `/web/statuses/${p.id}`;
}

function post(p: PostEntity, base: string | null): Html {
  const boosted = Reblog.safeParse(p.reblog);
  const at = (x: { id: string; created_at: string; url?: string | null }) => {
    const when = html`<time datetime="${x.created_at}">${x.created_at.slice(0, 10)}</time>`;
    return base === null ? when : html`<a class="permalink" href="${postPath(x, base)}">${when}</a>`;
  };
  if (boosted.success) {
    const r = boosted.data;
    return html`<article class="post boost" id="post-${p.id}"><p class="boosted-by">${authorHtml(p.account, 'booster')} boosted · ${at({ ...p, url: r.url, id: r.id })}</p><p class="meta">${authorHtml(r.account)}</p>${body(r)}</article>`;
  }
  return html`<article class="post" id="post-${p.id}"><p class="meta">${authorHtml(p.account)} · ${at(p)}</p>${body(p)}</article>`;
}
