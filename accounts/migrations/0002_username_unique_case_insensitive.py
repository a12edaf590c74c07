from django.db import migrations

INDEX = "auth_user_username_lower_uniq"


class Migration(migrations.Migration):
    """Login names are unique case-insensitively (accounts.backends.CaseInsensitiveModelBackend signs in by
    LOWER(username)). An expression index: PostgreSQL and SQLite both support it."""

    dependencies = [("accounts", "0001_auth_token"), ("auth", "0012_alter_user_first_name_max_length")]

    operations = [
        migrations.RunSQL(
            f"CREATE UNIQUE INDEX {INDEX} ON auth_user (LOWER(username));",
            reverse_sql=f"DROP INDEX {INDEX};",
        )
    ]
