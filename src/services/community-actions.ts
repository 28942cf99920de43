// What a member does in a community through the link-aggregator adapter (/api/v3, as Lemmy 0.19 clients ask it):
// the contract between the adapter's routes (src/api/lemmy) and the service that stores and federates it
// (community-service.ts). Ids are Lemmy's numeric ids (store/link-aggregator.ts). Failures are Errors.lemmy codes.
import type { Account } from '../store/accounts.js';
import type { CommentRecord, LinkPostRecord } from '../store/link-aggregator.js';

export type SubscribedType = 'Subscribed' | 'NotSubscribed' | 'Pending';

export interface NewCommunityPost {
  readonly communityId: number;
  /** The title. */
  readonly name: string;
  readonly url: string | null;
  /** Markdown. */
  readonly body: string;
  readonly nsfw: boolean;
  /** The OAuth app the member posts through (the adapter's built-in app). */
  readonly applicationId: string | null;
}

export interface CommunityPostEdit {
  readonly name?: string;
  /** null removes the link. */
  readonly url?: string | null;
  readonly body?: string;
  readonly nsfw?: boolean;
}

export interface NewComment {
  readonly postId: number;
  /** The comment replied to (of the same post), or null for a top-level comment. */
  readonly parentId: number | null;
  /** Markdown. */
  readonly content: string;
  readonly applicationId: string | null;
}

export type VoteTarget = { readonly postId: number } | { readonly commentId: number };

export interface CommunityActions {
  /** Follows or unfollows the community (Follow / Undo to its Group); the state after. */
  follow(me: Account, communityId: number, follow: boolean): Promise<SubscribedType>;
  createPost(me: Account, p: NewCommunityPost): Promise<LinkPostRecord>;
  /** Only the post's author; an Update to the community and the author's followers. */
  editPost(me: Account, postId: number, e: CommunityPostEdit): Promise<LinkPostRecord>;
  /** Only the post's author; a Delete naming Public, to the community. */
  deletePost(me: Account, postId: number): Promise<void>;
  createComment(me: Account, c: NewComment): Promise<CommentRecord>;
  editComment(me: Account, commentId: number, content: string): Promise<CommentRecord>;
  deleteComment(me: Account, commentId: number): Promise<void>;
  /** +1 Like, -1 Dislike (only while downvotes are enabled, else downvotes_are_disabled), 0 Undo; sent to the community's inbox. */
  vote(me: Account, target: VoteTarget, score: -1 | 0 | 1): Promise<void>;
  /** Saved posts and comments are the member's bookmarks (Mastodon's), one list for both APIs. */
  save(me: Account, target: VoteTarget, save: boolean): Promise<void>;
}
