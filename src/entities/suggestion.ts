// Mastodon's Suggestion entity (REST::SuggestionSerializer): the account, every source that suggests it, and the
// deprecated single `source` those map to.
import type { Suggestion, SuggestionSource } from '../store/suggestions.js';

const LEGACY: Readonly<Record<SuggestionSource, string>> = {
  featured: 'staff',
  friends_of_friends: 'past_interactions',
  most_interactions: 'global',
};

export function suggestionEntity(s: Suggestion, account: Record<string, unknown>) {
  return { source: LEGACY[s.sources[0]!], sources: s.sources, account };
}
