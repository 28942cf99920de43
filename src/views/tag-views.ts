// Tags and featured tags as API entities, a page at a time: the tags' last week read in one statement, and a
// member's follows and features of them in another.
import { featuredTagEntity, tagEntity, type TagEntity } from '../entities/tag.js';
import { quietWeek, type FeaturedTag, type Tag, type TagDay, type TagStore } from '../store/tags.js';
import type { LocalUris } from '../urls/local-uris.js';

/** A tag as named in a request that no status or member has used yet (Mastodon renders an unsaved Tag). */
export interface UnsavedTag {
  readonly id: null;
  readonly name: string;
}

export class TagViews {
  constructor(
    private readonly tags: TagStore,
    private readonly uris: LocalUris,
  ) {}

  /**
   * Tags as the Tag entity; `viewerId` (a member) adds `following` and `featuring`. A tag given with its `history`
   * (a trend's, as its last refresh counted it) is shown with that one, and its week is not read again.
   */
  async many(
    tags: readonly ((Tag | UnsavedTag) & { readonly history?: readonly TagDay[] })[],
    viewerId: string | null,
    now = new Date(),
  ): Promise<TagEntity[]> {
    const ids = tags.flatMap((t) => (t.id === null ? [] : [t.id]));
    const unread = tags.flatMap((t) => (t.id === null || t.history ? [] : [t.id]));
    const [history, rel] = await Promise.all([this.tags.history(unread, now), viewerId === null ? undefined : this.tags.relations(viewerId, ids)]);
    const empty = quietWeek(now);
    return tags.map((t) =>
      tagEntity(
        t,
        this.uris.tag(t.name),
        t.history ?? ((t.id !== null && history.get(t.id)) || empty),
        rel && { following: t.id !== null && rel.following.has(t.id), featuring: t.id !== null && rel.featuring.has(t.id) },
      ),
    );
  }

  async one(tag: Tag | UnsavedTag, viewerId: string | null): Promise<TagEntity> {
    return (await this.many([tag], viewerId))[0]!;
  }

  /** A member's featured tags as the FeaturedTag entity. */
  featured(username: string, featured: readonly FeaturedTag[]) {
    return featured.map((f) => featuredTagEntity(f, this.uris.taggedBy(username, f.name)));
  }
}
