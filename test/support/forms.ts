// Plain-HTTP helpers for the server-rendered forms: fetch a page, keep its cookies, read its CSRF token.

export class CookieJar {
  readonly cookies = new Map<string, string>();
  store(r: Response): void {
    for (const c of r.headers.getSetCookie()) {
      const [pair] = c.split(';', 1);
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq);
      const value = pair!.slice(eq + 1);
      if (/Max-Age=0/i.test(c)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }
  header(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }
}

export async function getForm(url: string, jar: CookieJar): Promise<{ token: string; html: string }> {
  const r = await fetch(url, { headers: { cookie: jar.header() }, redirect: 'manual' });
  jar.store(r);
  const html = await r.text();
  const m = /name="authenticity_token" value="([^"]+)"/.exec(html);
  if (!m) throw new Error(`no form token on ${url} (status ${r.status})`);
  return { token: m[1]!, html };
}

export async function postForm(url: string, jar: CookieJar, fields: Record<string, string>): Promise<Response> {
  const r = await fetch(url, {
    method: 'POST',
    headers: { cookie: jar.header(), 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
    redirect: 'manual',
  });
  jar.store(r);
  return r;
}
