-- Remote history jobs (helper C): at most one job of an origin runs at a time, cluster-wide. The claim checks it
-- under the origin's advisory lock; this index makes it a property of the table too, whatever code writes the rows.
-- A job whose lease expired is put back to `queued` before another job of its origin is claimed (history-jobs.ts).
CREATE UNIQUE INDEX remote_histories_one_fetching ON remote_histories (origin) WHERE state = 'fetching';
