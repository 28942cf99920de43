// The CommunityActions a node uses until the community service (community-service.ts, which stores and federates a
// member's posts, comments, votes, follows and saves) is wired in its place (wiring.ts): every action is refused
// with 503, so /api/v3 reads work and writes fail plainly instead of half-working.
import { Errors } from '../errors.js';
import type { CommunityActions } from './community-actions.js';

const refuse = async (): Promise<never> => {
  throw Errors.unavailable('The community service is not running on this server');
};

export const UNWIRED_COMMUNITY_ACTIONS: CommunityActions = {
  follow: refuse,
  createPost: refuse,
  editPost: refuse,
  deletePost: refuse,
  createComment: refuse,
  editComment: refuse,
  deleteComment: refuse,
  vote: refuse,
  save: refuse,
};
