-- Poll counts federated. update_due_at: when a local poll's Update (its new counts, or its end) is to be sent; the
-- first vote of a burst sets it a short delay ahead and later ones leave it, so a burst sends one Update.
-- update_lease_until: a node is queueing that Update; past it (the node died) another node sends it again.
-- refreshed_at: when a remote poll's counts were last read from its server (its Question delivered, updated or
-- fetched), so a stale copy is fetched again when viewed.
ALTER TABLE polls ADD COLUMN update_due_at timestamptz, ADD COLUMN update_lease_until timestamptz, ADD COLUMN refreshed_at timestamptz;
UPDATE polls SET refreshed_at = created_at WHERE remote_counts IS NOT NULL;
CREATE INDEX polls_update_due ON polls (update_due_at) WHERE update_due_at IS NOT NULL;
CREATE INDEX polls_update_lease ON polls (update_lease_until) WHERE update_lease_until IS NOT NULL;
