// The query parameters of GET /api/v1/admin/accounts and /api/v2/admin/accounts as one AccountFilter. v1 takes
// flags (`local`, `suspended`, `staff` …: present and non-blank means on, as Rails' present?) and Mastodon
// translates them to v2's `origin`, `status` and roles; an unknown v2 value is a 400, as Mastodon's
// InvalidParameterError.
import { Errors } from '../errors.js';
import type { Params } from '../http/params.js';
import type { Keep } from '../http/pagination.js';
import { type AccountFilter, ORIGINS, STATUSES } from '../store/account-moderation.js';
import { isId } from '../store/ids.js';
import { stringList } from './params.js';

const TEXT_KEYS = ['username', 'display_name', 'email', 'ip', 'by_domain'] as const;
const V1_FLAGS = ['local', 'remote', 'active', 'pending', 'disabled', 'sensitized', 'silenced', 'suspended', 'staff'] as const;
const V1_STATUSES = ['active', 'pending', 'disabled', 'sensitized', 'silenced', 'suspended'] as const;

/** A text parameter: undefined when absent or blank; anything but one string is refused. */
function text(q: Params, key: string): string | undefined {
  const v = q[key];
  if (v === undefined) return undefined;
  if (typeof v !== 'string') throw Errors.badRequest(`${key} must be a string`);
  return v.trim() === '' ? undefined : v;
}

function oneOf<T extends string>(q: Params, key: string, allowed: readonly T[]): T | undefined {
  const v = text(q, key);
  if (v === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(v)) throw Errors.badRequest(`Unknown ${key}: ${v}`);
  return v as T;
}

function texts(q: Params) {
  return {
    username: text(q, 'username'),
    displayName: text(q, 'display_name'),
    email: text(q, 'email'),
    ip: text(q, 'ip'),
    byDomain: text(q, 'by_domain'),
  };
}

/** The request's filter parameters, to carry over into the Link header's pages. */
function kept(q: Params, keys: readonly string[]): Record<string, string | readonly string[] | undefined> {
  return Object.fromEntries(keys.map((k) => [k, typeof q[k] === 'string' ? q[k] : stringList(q[k])]));
}

export function v1Filter(q: Params): { filter: AccountFilter; keep: Keep } {
  const on = (k: string) => text(q, k) !== undefined;
  let status: AccountFilter['status'];
  for (const s of V1_STATUSES) if (on(s)) status = s; // the last given wins, as Mastodon's translation loop
  const filter: AccountFilter = {
    ...texts(q),
    origin: on('remote') ? 'remote' : on('local') ? 'local' : undefined,
    status,
    staff: on('staff') || undefined,
  };
  return { filter, keep: kept(q, [...V1_FLAGS, ...TEXT_KEYS]) };
}

export function v2Filter(q: Params): { filter: AccountFilter; keep: Keep } {
  const roleIds = stringList(q['role_ids']);
  if (roleIds?.some((id) => !isId(id))) throw Errors.badRequest('role_ids must be ids');
  const filter: AccountFilter = {
    ...texts(q),
    origin: oneOf(q, 'origin', ORIGINS),
    status: oneOf(q, 'status', STATUSES),
    staff: oneOf(q, 'permissions', ['staff'] as const) === 'staff' || undefined,
    roleIds: roleIds?.length ? roleIds : undefined,
    invitedBy: text(q, 'invited_by'),
  };
  return { filter, keep: kept(q, ['origin', 'status', 'permissions', 'invited_by', 'role_ids', ...TEXT_KEYS]) };
}
