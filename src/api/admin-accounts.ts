// Mastodon's Admin::AccountActions API, the part this server implements: POST /api/v1/admin/accounts/:id/action
// with type=suspend for a remote account (its posts hidden from everyone, its history never fetched), and type=none
// (nothing to do). Needs an admin:write:accounts scope and a member whose role may manage users.
import { z } from 'zod';
import { hasPermission } from '../auth/permissions.js';
import { Errors } from '../errors.js';
import { json } from '../http/respond.js';
import { route, type Route } from '../http/types.js';
import type { Logger } from '../log.js';
import type { AccountStore } from '../store/accounts.js';
import { isId } from '../store/ids.js';
import { given, invalid } from './params.js';

const ACTIONS = ['none', 'sensitive', 'disable', 'silence', 'suspend'] as const;
const ActionBody = z.object({
  type: z.enum(ACTIONS, { error: `Type must be one of ${ACTIONS.join(', ')}` }),
  text: z.string().max(5000).optional(),
  report_id: z.unknown().optional(),
  warning_preset_id: z.unknown().optional(),
  send_email_notification: z.unknown().optional(),
});

export interface AdminAccountApiDeps {
  readonly log: Logger;
  readonly accounts: AccountStore;
}

export function adminAccountRoutes(d: AdminAccountApiDeps): Route[] {
  return [
    route({
      method: 'POST',
      path: '/api/v1/admin/accounts/:id/action',
      auth: { scopes: ['admin:write:accounts'], member: true },
      body: true,
      handler: async (req, who) => {
        const user = who.record.user;
        if (!hasPermission(user.permissions, 'manageUsers')) throw Errors.forbidden();
        const id = req.params['id']!;
        const target = isId(id) ? await d.accounts.byId(id) : undefined;
        if (!target || target.instanceActor) throw Errors.notFound();
        const p = ActionBody.safeParse(given(req.fields));
        if (!p.success) throw invalid(p.error);
        const type = p.data.type;
        if (type === 'none') return json(200, {});
        if (type !== 'suspend') throw Errors.validation(`the ${type} action is not supported by this server`);
        if (target.domain === null) throw Errors.validation('only remote accounts can be suspended on this server');
        await d.accounts.setSuspended(target.id, true);
        d.log.info({ account: target.id, by: user.accountId, action: type }, 'account suspended');
        return json(200, {});
      },
    }),
  ];
}
