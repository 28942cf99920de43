// Lemmy 0.19's PersonView (lemmy-js-client): the person (objects.ts), their counts of posts and comments filed in
// communities here, and whether they administer this server.
import type { LinkSiteStore } from '../../store/link-site.js';
import type { LemmyObjects, LemmyPerson } from './objects.js';

export interface LemmyPersonView {
  readonly person: LemmyPerson;
  readonly counts: { readonly person_id: number; readonly post_count: number; readonly comment_count: number };
  readonly is_admin: boolean;
}

export class PersonViews {
  constructor(
    private readonly objects: LemmyObjects,
    private readonly site: Pick<LinkSiteStore, 'personCounts'>,
  ) {}

  /** PersonViews of the accounts, in the order given (unknown ones left out). */
  async views(accountIds: readonly string[], viewer: string | null): Promise<LemmyPersonView[]> {
    if (accountIds.length === 0) return [];
    const [people, counts] = await Promise.all([this.objects.people(accountIds, viewer), this.site.personCounts(accountIds)]);
    return accountIds.flatMap((id) => {
      const p = people.get(id);
      if (!p) return [];
      const c = counts.get(id);
      return [{ person: p.person, counts: { person_id: p.person.id, post_count: c?.posts ?? 0, comment_count: c?.comments ?? 0 }, is_admin: p.admin }];
    });
  }

  async view(accountId: string, viewer: string | null): Promise<LemmyPersonView | undefined> {
    return (await this.views([accountId], viewer))[0];
  }
}
