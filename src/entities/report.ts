// Mastodon's Report (what the reporter and the admin.report notification show) and Admin::Report / Admin::Account
// (what moderators see through the admin API).
import type { Account } from '../store/accounts.js';
import type { Report } from '../store/reports.js';
import type { ModeratedUser } from '../store/users.js';
import { roleEntity } from './account.js';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** REST::ReportSerializer: rule_ids as strings, null when the report cites no rule. */
export function reportEntity(r: Report, targetAccount: unknown) {
  return {
    id: r.id,
    action_taken: r.actionTakenAt !== null,
    action_taken_at: iso(r.actionTakenAt),
    category: r.category,
    comment: r.comment,
    forwarded: r.forwarded,
    created_at: r.createdAt.toISOString(),
    status_ids: r.statusIds,
    rule_ids: r.ruleIds,
    target_account: targetAccount,
  };
}

/**
 * REST::Admin::AccountSerializer. What belongs to a member (e-mail, role, sign-in, approval) is null for remote
 * accounts, as Mastodon's nil user gives; Stoa has no e-mail confirmation step (members are confirmed when
 * created). A remote account whose actor was deleted is shown suspended, as Mastodon suspends such accounts.
 */
export function adminAccountEntity(a: Account, user: ModeratedUser | undefined, account: unknown) {
  return {
    id: a.id,
    username: a.username,
    domain: a.domain,
    created_at: a.createdAt.toISOString(),
    email: user?.email ?? null,
    ip: user?.lastSignInIp ?? null,
    ips: user?.lastSignInIp ? [{ ip: user.lastSignInIp, used_at: iso(user.lastSignInAt) }] : [],
    locale: null,
    invite_request: user?.signUpReason ?? null,
    role: user ? roleEntity(user) : null,
    confirmed: user ? true : null,
    approved: user ? user.approved : null,
    disabled: user ? user.disabled : null,
    silenced: a.silencedAt !== null,
    suspended: a.suspendedAt !== null || a.deletedAt !== null,
    sensitized: a.sensitizedAt !== null,
    account,
  };
}

export type AdminAccountEntity = ReturnType<typeof adminAccountEntity>;

/** REST::Admin::ReportSerializer, with the Rule entities of the rules it cites. */
export function adminReportEntity(
  r: Report,
  parts: {
    readonly account: AdminAccountEntity;
    readonly targetAccount: AdminAccountEntity;
    readonly assignedAccount: AdminAccountEntity | null;
    readonly actionTakenByAccount: AdminAccountEntity | null;
    readonly statuses: readonly unknown[];
    readonly rules: readonly unknown[];
  },
) {
  return {
    id: r.id,
    action_taken: r.actionTakenAt !== null,
    action_taken_at: iso(r.actionTakenAt),
    category: r.category,
    comment: r.comment,
    forwarded: r.forwarded,
    created_at: r.createdAt.toISOString(),
    updated_at: r.updatedAt.toISOString(),
    account: parts.account,
    target_account: parts.targetAccount,
    assigned_account: parts.assignedAccount,
    action_taken_by_account: parts.actionTakenByAccount,
    statuses: parts.statuses,
    rules: parts.rules,
  };
}
