package equiv

import (
	"context"

	"github.com/sqljudge/sqljudge/internal/engine"
	"github.com/sqljudge/sqljudge/internal/usage"
)

// newServerSandbox returns the sandbox of a --db DSN of dialect d: scratch
// databases on a PostgreSQL or a MariaDB/MySQL server.
func newServerSandbox(ctx context.Context, d engine.Dialect, o CommandOptions) (Sandbox, error) {
	switch d {
	case engine.Postgres:
		return NewPostgresSandbox(ctx, o.DB, o.AllowSuperuser)
	case engine.MySQL:
		return NewMySQLSandbox(ctx, o.DB, o.AllowSuperuser)
	}
	return nil, usage.Errorf("--db: equiv runs on SQLite (a folder, or none), PostgreSQL (postgres://…) or MariaDB/MySQL (mysql://…), not %s", d)
}
