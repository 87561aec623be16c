package equiv

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"regexp"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sqljudge/sqljudge/internal/engine"
)

// Scratch databases on a server are named
// sqljudge_equiv_<unix seconds>_<8 random hex digits>_<n>: the time the
// sandbox was made, a part that keeps concurrent runs apart, and a
// counter. A run that is killed (kill -9, a lost connection) cannot drop
// its scratch databases; the next sandbox on that server drops those that
// are stale (NewPostgresSandbox, NewMySQLSandbox), and `sqljudge equiv
// --cleanup` does so on demand. A scratch database is stale when it was
// made more than staleAfter ago and no session is connected to it (a run
// keeps a session on each of its scratch databases from creation to drop,
// however long its pair takes); on PostgreSQL it must also belong to the
// sandbox's role. Names of the older form sqljudge_equiv_<8 hex>_<n>
// (before the time was in the name) are stale when no session is
// connected.

// staleAfter is the age past which a scratch database with no session is
// a leftover.
const staleAfter = 10 * time.Minute

var (
	scratchNameRe = regexp.MustCompile(`^sqljudge_equiv_([0-9]{10})_[0-9a-f]{8}_[0-9]+$`)
	legacyNameRe  = regexp.MustCompile(`^sqljudge_equiv_[0-9a-f]{8}_[0-9]+$`)
)

// scratchPrefix returns a new sandbox's name prefix.
func scratchPrefix() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return fmt.Sprintf("sqljudge_equiv_%d_%s", time.Now().Unix(), hex.EncodeToString(b[:]))
}

// isStaleName reports whether name is a scratch database name made more
// than age before now (or of the older form, without a time).
func isStaleName(name string, now time.Time, age time.Duration) bool {
	if legacyNameRe.MatchString(name) {
		return true
	}
	m := scratchNameRe.FindStringSubmatch(name)
	if m == nil {
		return false
	}
	sec, err := strconv.ParseInt(m[1], 10, 64)
	return err == nil && now.Sub(time.Unix(sec, 0)) > age
}

// pgIdleScratchQuery lists the scratch databases of the current role with
// no session connected.
const pgIdleScratchQuery = `SELECT d.datname FROM pg_database d
WHERE d.datname LIKE 'sqljudge\_equiv\_%' AND d.datdba = (SELECT oid FROM pg_roles WHERE rolname = current_user)
  AND NOT EXISTS (SELECT 1 FROM pg_stat_activity a WHERE a.datname = d.datname)
ORDER BY d.datname`

// sweepPostgres drops the stale scratch databases of the role of cfg
// (see above) and returns their names. A database that cannot be dropped
// (a session connected meanwhile) is left alone.
func sweepPostgres(ctx context.Context, cfg *pgx.ConnConfig, age time.Duration) ([]string, error) {
	c, err := connectPostgres(ctx, cfg, "")
	if err != nil {
		return nil, fmt.Errorf("--db: cannot connect: %w", err)
	}
	defer c.Close(context.WithoutCancel(ctx))
	rows, err := c.Query(ctx, pgIdleScratchQuery, pgx.QueryExecModeExec)
	if err != nil {
		return nil, fmt.Errorf("--db: cannot list scratch databases: %w", err)
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("--db: cannot list scratch databases: %w", err)
	}
	var dropped []string
	now := time.Now()
	for _, n := range names {
		if !isStaleName(n, now, age) {
			continue
		}
		if err := execPG(ctx, c.PgConn(), []string{"DROP DATABASE IF EXISTS " + engine.Postgres.QuoteIdent(n)}, nil); err == nil {
			dropped = append(dropped, n)
		}
	}
	return dropped, nil
}
