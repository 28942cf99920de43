// Role permissions as a bit set, with Mastodon's bit positions so the `role.permissions` string clients read means
// the same thing. Administrator implies every permission.

export const Permission = {
  administrator: 1n << 0n,
  viewDevops: 1n << 1n,
  viewAuditLog: 1n << 2n,
  viewDashboard: 1n << 3n,
  manageReports: 1n << 4n,
  manageFederation: 1n << 5n,
  manageSettings: 1n << 6n,
  manageBlocks: 1n << 7n,
  manageTaxonomies: 1n << 8n,
  manageAppeals: 1n << 9n,
  manageUsers: 1n << 10n,
  manageInvites: 1n << 11n,
  manageRules: 1n << 12n,
  manageAnnouncements: 1n << 13n,
  manageCustomEmojis: 1n << 14n,
  manageWebhooks: 1n << 15n,
  inviteUsers: 1n << 16n,
  manageRoles: 1n << 17n,
  manageUserAccess: 1n << 18n,
  deleteUserData: 1n << 19n,
  viewFeeds: 1n << 20n,
} as const;

export type PermissionName = keyof typeof Permission;

export function hasPermission(permissions: bigint, p: PermissionName): boolean {
  return (permissions & Permission.administrator) !== 0n || (permissions & Permission[p]) !== 0n;
}

/** The roles seeded by migration 001, by the names the CLI accepts. */
export const RoleId = { user: 0, moderator: 1, admin: 2, owner: 3 } as const;
export type RoleName = keyof typeof RoleId;
