-- Whether viewer `viewer` may read status `sid` (store/visibility.ts readableRow, written out: a test holds the two
-- equal). The rule for the status a boost boosts is called through it where boosts are rare (notifications, threads):
-- PostgreSQL sets up every node of a statement's plan before running it, and inline that branch was ~70 of ~580 µs of
-- a notifications page that never met a boost (issue 19). A function's body is set up only when it is called; one
-- whose body has a subquery is never written into the caller's plan.
CREATE FUNCTION status_readable(sid bigint, viewer bigint) RETURNS boolean LANGUAGE sql STABLE AS $$
  SELECT EXISTS (SELECT 1 FROM statuses s WHERE s.id = sid AND (s.deleted_at IS NULL AND NOT EXISTS (SELECT 1 FROM accounts sx WHERE sx.id = s.account_id AND sx.suspended_at IS NOT NULL) AND (s.visibility <= 1 OR s.account_id = viewer
      OR (s.visibility = 2 AND EXISTS (SELECT 1 FROM follows vf WHERE vf.account_id = viewer AND vf.target_account_id = s.account_id))
      OR EXISTS (SELECT 1 FROM status_mentions vm WHERE vm.status_id = s.id AND vm.account_id = viewer))
    AND NOT EXISTS (SELECT 1 FROM blocks vb WHERE vb.account_id = s.account_id AND vb.target_account_id = viewer)))
$$;
