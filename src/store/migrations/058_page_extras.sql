-- The rarer dynamic parts of a page (store/render-bundle.ts dynamicItems) as functions, called only when the page has
-- something for them (issue 19). PostgreSQL sets up every node of a statement's plan before running it, branches that
-- never run included: for a page of one status, polls, votes, reactions and muted threads were ~70 of its ~320 µs of
-- PostgreSQL time, paid by every page though few carry a poll or a reaction. A function's body is set up only when it
-- is called. Each returns what the inline subquery returned.

/* The polls of statuses `ids`, with their tallies and voters. */
CREATE FUNCTION page_polls(ids bigint[]) RETURNS json LANGUAGE sql STABLE AS $$
  SELECT json_agg(x) FROM (SELECT p.id::text AS id, p.status_id::text AS status_id, p.account_id::text AS account_id, p.options, p.multiple,
      p.hide_totals, p.expires_at, p.remote_counts, p.remote_voters,
      ARRAY(SELECT (SELECT count(*)::int FROM poll_votes v WHERE v.poll_id = p.id AND v.choice = i - 1) FROM generate_subscripts(p.options, 1) AS i ORDER BY i) AS counts,
      (SELECT count(DISTINCT account_id)::int FROM poll_votes v WHERE v.poll_id = p.id) AS voters
    FROM polls p WHERE p.status_id = ANY(ids)) x
$$;

/* Viewer `viewer`'s choices in the polls of statuses `ids`. */
CREATE FUNCTION page_own_votes(ids bigint[], viewer bigint) RETURNS json LANGUAGE sql STABLE AS $$
  SELECT json_agg(x) FROM (SELECT v.poll_id::text AS poll_id, array_agg(v.choice ORDER BY v.choice) AS choices FROM poll_votes v
    WHERE v.account_id = viewer AND v.poll_id = ANY(ARRAY(SELECT p.id FROM polls p WHERE p.status_id = ANY(ids))) GROUP BY v.poll_id) x
$$;

/*
 * The reactions to statuses `ids` that `viewer` is shown: none by an account they block or mute or that blocks them
 * (store/visibility.ts notSilenced, written out), per status and emoji, most used first.
 */
CREATE FUNCTION page_reactions(ids bigint[], viewer bigint) RETURNS json LANGUAGE sql STABLE AS $$
  SELECT json_agg(rx ORDER BY rx.status_id, rx.n DESC, rx.first) FROM (SELECT r.status_id::text AS status_id, r.emoji, min(r.emoji_url) AS url,
      count(*)::int AS n, coalesce(bool_or(r.account_id = viewer), false) AS me, (array_agg(r.account_id::text ORDER BY r.id))[1:40] AS accounts, min(r.id) AS first
    FROM status_reactions r WHERE r.status_id = ANY(ids)
      AND NOT EXISTS (SELECT 1 FROM blocks b WHERE (b.account_id = viewer AND b.target_account_id = r.account_id)
        OR (b.account_id = r.account_id AND b.target_account_id = viewer))
      AND NOT EXISTS (SELECT 1 FROM mutes mu WHERE mu.account_id = viewer AND mu.target_account_id = r.account_id
        AND (mu.expires_at IS NULL OR mu.expires_at > now()))
    GROUP BY r.status_id, r.emoji) rx
$$;

/* Which of statuses `ids` lie in a thread `viewer` muted. */
CREATE FUNCTION page_muted_threads(ids bigint[], viewer bigint) RETURNS text[] LANGUAGE sql STABLE AS $$
  SELECT ARRAY(SELECT DISTINCT i::text FROM unnest(ids) i WHERE thread_root(i) IN (SELECT root_status_id FROM thread_mutes WHERE account_id = viewer))
$$;
