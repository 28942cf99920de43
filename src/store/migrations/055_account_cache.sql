-- The rendered-account cache (issue 19, api/account-cache.ts) keeps accounts' rows and entities per node, dropped on
-- `a:<id>` (migration 048's trigger, on updates of what the entity shows). An account row deleted outright (a
-- sign-up rejected) must go from every node too.
CREATE FUNCTION account_cache_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('stoa_cache', 'a:' || OLD.id::text);
  RETURN NULL;
END $$;
CREATE TRIGGER accounts_cache_deleted AFTER DELETE ON accounts FOR EACH ROW EXECUTE FUNCTION account_cache_deleted();
