// Server-rendered HTML with escaping by default: interpolated values are escaped unless they are already Html.

export class Html {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

type Part = Html | string | number | boolean | null | undefined | readonly Part[];

function render(v: Part): string {
  if (v === null || v === undefined || v === false) return '';
  if (v instanceof Html) return v.value;
  if (Array.isArray(v)) return v.map(render).join('');
  return escapeHtml(String(v));
}

export function html(strings: TemplateStringsArray, ...values: Part[]): Html {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) out += render(values[i]!) + strings[i + 1]!;
  return new Html(out);
}

const STYLE = `
body{font:16px/1.5 system-ui,sans-serif;margin:0;background:#f4f4f8;color:#1c1c28}
main{max-width:34rem;margin:3rem auto;padding:2rem;background:#fff;border-radius:8px;box-shadow:0 1px 4px #0002}
h1{font-size:1.5rem;margin-top:0}label{display:block;margin:.8rem 0 .2rem;font-weight:600}
input[type=text],input[type=password],input[type=email],textarea{width:100%;box-sizing:border-box;padding:.5rem;border:1px solid #aab;border-radius:4px;font:inherit}
button{margin-top:1rem;padding:.5rem 1.2rem;border:0;border-radius:4px;background:#5b4bdb;color:#fff;font:inherit;cursor:pointer}
button.secondary{background:#777}.error{color:#b00020;background:#fde8ea;padding:.6rem;border-radius:4px}
.notice{background:#e8f3fd;padding:.6rem;border-radius:4px}table{width:100%;border-collapse:collapse}td,th{text-align:left;padding:.3rem;border-bottom:1px solid #ddd}
nav{display:flex;gap:1rem;align-items:center;justify-content:space-between;margin-bottom:1rem}form.inline{display:inline}`;

/** opts.head: more of the head (a meta refresh: pages carry no script). */
export function page(title: string, body: Html, opts: { instanceTitle: string; head?: Html }): string {
  return (
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">${opts.head?.value ?? ''}` +
    `<title>${escapeHtml(title)} - ${escapeHtml(opts.instanceTitle)}</title><style>${STYLE}</style></head>` +
    `<body><main>${body.value}</main></body></html>`
  );
}
