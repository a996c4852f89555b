-- Wakes the poll source as soon as rows are committed, instead of it polling the table in a tight loop.
-- FOR EACH STATEMENT and an empty payload keep it cheap: PostgreSQL folds identical notifications of one
-- transaction into one, and delivers it only at commit, which is exactly when the rows become visible.
CREATE FUNCTION ${notifyfunction}() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('${channel}', '');
    RETURN NULL;
END
$$;

CREATE TRIGGER "${prefix}_relay_notify" AFTER INSERT ON ${outbox}
    FOR EACH STATEMENT EXECUTE FUNCTION ${notifyfunction}();
