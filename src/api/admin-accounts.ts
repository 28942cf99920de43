// Mastodon's Admin::Accounts API: moderators list accounts (v1's flags and v2's filters, Link-header pages), read
// one as Admin::Account, act on it (none, sensitive, disable, silence, suspend) and undo (unsensitive, unsilence,
// unsuspend, enable), review sign-ups (approve, reject) and delete a suspended account's data. Reading needs an
// admin:read:accounts scope, the rest admin:write:accounts; then the role's Manage users permission (deleting: Delete
// user data, as Mastodon's AccountPolicy#destroy?). Acting on a member needs a role ranking above theirs.
import { z } from 'zod';
import { Errors } from '../errors.js';
import { pageQuery, timelineLinks } from '../http/pagination.js';
import type { Request } from '../http/request.js';
import { json } from '../http/respond.js';
import { route, type MemberPrincipal, type Route } from '../http/types.js';
import type { Logger } from '../log.js';
import type { AccountFilter, AccountModerationStore } from '../store/account-moderation.js';
import type { Account, AccountStore } from '../store/accounts.js';
import type { AuthEventListener } from '../store/auth-events.js';
import { isId } from '../store/ids.js';
import type { ReportStore } from '../store/reports.js';
import type { LocalUser, UserStore } from '../store/users.js';
import { v1Filter, v2Filter } from './admin-account-filters.js';
import type { AdminAccountViews } from '../views/admin-account-views.js';
import { given, idParam, invalid } from './params.js';

// Mastodon's LIMIT, and its limit_param's cap of twice that.
const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 200;

const ACTIONS = ['none', 'sensitive', 'disable', 'silence', 'suspend'] as const;
type ActionType = (typeof ACTIONS)[number];
const ActionBody = z.object({
  type: z.enum(ACTIONS, { error: `Type must be one of ${ACTIONS.join(', ')}` }),
  text: z.string().max(5000).optional(),
  report_id: idParam.optional(),
  // No warning presets and no e-mail here: accepted, as clients send them, and not acted on.
  warning_preset_id: z.unknown().optional(),
  send_email_notification: z.unknown().optional(),
});

// Moderators whose role holds Manage users; deleting an account's data takes Delete user data instead.
const READ = { scopes: ['admin:read:accounts'], member: true, permission: 'manageUsers' } as const;
const WRITE = { scopes: ['admin:write:accounts'], member: true, permission: 'manageUsers' } as const;
const DELETE_DATA = { scopes: ['admin:write:accounts'], member: true, permission: 'deleteUserData' } as const;

export interface AdminAccountApiDeps {
  readonly baseUrl: string;
  readonly log: Logger;
  readonly accounts: AccountStore;
  readonly users: UserStore;
  readonly moderation: AccountModerationStore;
  readonly reports: ReportStore;
  readonly views: AdminAccountViews;
  readonly authEvents: Pick<AuthEventListener, 'publish'>;
  /** A sign-up was approved or rejected: the instance documents' counts change. */
  readonly usersChanged: () => void;
}

export function adminAccountRoutes(d: AdminAccountApiDeps): Route[] {
  /** The account named by the path; never the instance actor. */
  const target = async (req: Request): Promise<Account> => {
    const id = req.params['id']!;
    const a = isId(id) ? await d.accounts.byId(id) : undefined;
    if (!a || a.instanceActor) throw Errors.notFound();
    return a;
  };
  /** The account's member: enable, approve and reject are for local members only (Mastodon's require_local_account!). */
  const memberOf = async (a: Account): Promise<LocalUser> => {
    const u = a.domain === null ? await d.users.byAccountId(a.id) : undefined;
    if (!u) throw Errors.forbidden();
    return u;
  };
  /** Mastodon's role.overrides?: a member is acted on only by a role ranking above theirs (never by themselves). */
  const outranks = async (me: LocalUser, a: Account): Promise<void> => {
    if (a.domain !== null) return;
    const u = await d.users.byAccountId(a.id);
    if (u && u.rolePosition >= me.rolePosition) throw Errors.forbidden();
  };
  const answer = async (id: string) => json(200, await d.views.one((await d.accounts.byId(id))!));
  /** A change that decides whether the member's tokens work, acknowledged by every node before the answer. */
  const authChange = (run: (nonce: string) => Promise<boolean>) => d.authEvents.publish(run, (changed) => changed);

  const list =
    (filterOf: (req: Request) => { filter: AccountFilter; keep: Record<string, string | readonly string[] | undefined> }) => async (req: Request) => {
      const { filter, keep } = filterOf(req);
      const page = pageQuery(req.query, DEFAULT_LIMIT, MAX_LIMIT);
      const ids = await d.moderation.search(filter, page);
      const byId = new Map((await d.accounts.byIds(ids)).map((a) => [a.id, a]));
      const accounts = ids.flatMap((id) => byId.get(id) ?? []);
      return json(200, await d.views.many(accounts), timelineLinks(d.baseUrl + req.path, page, ids, keep));
    };

  /** POST /api/v1/admin/accounts/:id/<undo>: the permission, the account, then `allowed` (403 otherwise). */
  const undo =
    (name: string, run: (a: Account) => Promise<void>, allowed: (a: Account) => boolean = () => true) =>
    async (req: Request, who: MemberPrincipal) => {
      const me = who.record.user;
      const a = await target(req);
      if (!allowed(a)) throw Errors.forbidden();
      await run(a);
      d.log.info({ account: a.id, by: me.accountId, action: name }, 'account moderated');
      return answer(a.id);
    };

  const act = async (type: ActionType, a: Account, me: LocalUser): Promise<void> => {
    switch (type) {
      case 'none':
        return;
      case 'disable': {
        const u = await memberOf(a);
        await outranks(me, a);
        await authChange((nonce) => d.users.setDisabled(u.userId, true, nonce));
        return;
      }
      case 'sensitive':
        await outranks(me, a);
        return d.moderation.setSensitized(a.id, true);
      case 'silence':
        await outranks(me, a);
        return d.moderation.setSilenced(a.id, true);
      case 'suspend':
        await outranks(me, a);
        await authChange((nonce) => d.moderation.setSuspended(a.id, true, nonce));
        return;
    }
  };

  return [
    route({ method: 'GET', path: '/api/v1/admin/accounts', auth: READ, handler: list((req) => v1Filter(req.query)) }),
    route({ method: 'GET', path: '/api/v2/admin/accounts', auth: READ, handler: list((req) => v2Filter(req.query)) }),
    route({
      method: 'GET',
      path: '/api/v1/admin/accounts/:id',
      auth: READ,
      handler: async (req) => json(200, await d.views.one(await target(req))),
    }),
    route({
      method: 'POST',
      path: '/api/v1/admin/accounts/:id/action',
      auth: WRITE,
      body: true,
      handler: async (req, who) => {
        const me = who.record.user;
        const a = await target(req);
        const p = ActionBody.safeParse(given(req.fields));
        if (!p.success) throw invalid(p.error);
        const { type, report_id: reportId } = p.data;
        if (reportId !== undefined && !(await d.reports.byId(reportId))) throw Errors.notFound();
        await act(type, a, me);
        // The report the action answers is resolved by it (Mastodon's process_reports!).
        if (reportId !== undefined) await d.reports.resolve(reportId, me.accountId);
        d.log.info({ account: a.id, by: me.accountId, action: type, report: reportId }, 'account moderated');
        return json(200, {});
      },
    }),
    route({
      method: 'POST',
      path: '/api/v1/admin/accounts/:id/unsuspend',
      auth: WRITE,
      body: true,
      // Only a suspension still in force (Mastodon's suspension_origin_local?); not once its data is deleted.
      handler: undo(
        'unsuspend',
        async (a) => void (await authChange((nonce) => d.moderation.setSuspended(a.id, false, nonce))),
        (a) => a.suspendedAt !== null && a.deletedAt === null,
      ),
    }),
    route({
      method: 'POST',
      path: '/api/v1/admin/accounts/:id/unsilence',
      auth: WRITE,
      body: true,
      handler: undo('unsilence', (a) => d.moderation.setSilenced(a.id, false)),
    }),
    route({
      method: 'POST',
      path: '/api/v1/admin/accounts/:id/unsensitive',
      auth: WRITE,
      body: true,
      handler: undo('unsensitive', (a) => d.moderation.setSensitized(a.id, false)),
    }),
    route({
      method: 'POST',
      path: '/api/v1/admin/accounts/:id/enable',
      auth: WRITE,
      body: true,
      handler: undo('enable', async (a) => {
        const u = await memberOf(a);
        await authChange((nonce) => d.users.setDisabled(u.userId, false, nonce));
      }),
    }),
    route({
      method: 'POST',
      path: '/api/v1/admin/accounts/:id/approve',
      auth: WRITE,
      body: true,
      handler: async (req, who) => {
        const me = who.record.user;
        const a = await target(req);
        const u = await memberOf(a);
        if (u.approved) throw Errors.forbidden();
        await d.users.approve(u.userId);
        d.usersChanged();
        d.log.info({ account: a.id, by: me.accountId, action: 'approve' }, 'registration reviewed');
        return answer(a.id);
      },
    }),
    route({
      method: 'POST',
      path: '/api/v1/admin/accounts/:id/reject',
      auth: WRITE,
      body: true,
      handler: async (req, who) => {
        const me = who.record.user;
        const a = await target(req);
        const u = await memberOf(a);
        if (u.approved) throw Errors.forbidden();
        // The answer shows the sign-up as it was: rejecting removes it, freeing the username and e-mail.
        const shown = await d.views.one(a);
        await d.users.reject(u.userId);
        d.usersChanged();
        d.log.info({ account: a.id, by: me.accountId, action: 'reject' }, 'registration reviewed');
        return json(200, shown);
      },
    }),
    route({
      method: 'DELETE',
      path: '/api/v1/admin/accounts/:id',
      auth: DELETE_DATA,
      handler: async (req, who) => {
        const me = who.record.user;
        const a = await target(req);
        if (a.suspendedAt === null) throw Errors.forbidden();
        await authChange((nonce) => d.moderation.deleteData(a.id, nonce));
        d.log.info({ account: a.id, by: me.accountId, action: 'delete' }, 'account data deleted');
        return answer(a.id);
      },
    }),
  ];
}
