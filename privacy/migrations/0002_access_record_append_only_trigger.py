"""On PostgreSQL the database itself refuses to change or delete an access record: UPDATE always, DELETE unless
the retention purge (privacy.services.access_records_purge) has set, for its own transaction only, the cutoff
before which rows may go. SQLite has no such trigger here; the model, the queryset and the admin refuse there.
TRUNCATE is left alone: it needs the table owner (the migration role, not the app's), and Django's test flush and
`flush` use it."""

from django.db import migrations

FUNCTION = """
CREATE OR REPLACE FUNCTION privacy_accessrecord_append_only() RETURNS trigger AS $$
DECLARE
    cutoff text := current_setting('cs.access_purge_before', true);
BEGIN
    IF TG_OP = 'DELETE' AND cutoff IS NOT NULL AND cutoff <> '' AND OLD.at < cutoff::timestamptz THEN
        RETURN OLD;
    END IF;
    RAISE EXCEPTION 'privacy_accessrecord is append-only (% refused)', TG_OP USING ERRCODE = 'insufficient_privilege';
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER privacy_accessrecord_append_only
    BEFORE UPDATE OR DELETE ON privacy_accessrecord
    FOR EACH ROW EXECUTE FUNCTION privacy_accessrecord_append_only();
"""
REVERSE = """
DROP TRIGGER IF EXISTS privacy_accessrecord_append_only ON privacy_accessrecord;
DROP FUNCTION IF EXISTS privacy_accessrecord_append_only();
"""


def forward(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(FUNCTION, params=None)


def backward(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(REVERSE, params=None)


class Migration(migrations.Migration):
    dependencies = [("privacy", "0001_access_record")]

    operations = [migrations.RunPython(forward, backward)]
