package equiv

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sqljudge/sqljudge/internal/engine"
	"github.com/sqljudge/sqljudge/internal/engine/postgres"
	"github.com/sqljudge/sqljudge/internal/result"
)

// PostgresSandbox makes scratch databases on a PostgreSQL server: each
// Open runs CREATE DATABASE under a new name (sqljudge_equiv_<random>_<n>),
// and the scratch's Close drops it (DROP DATABASE … WITH (FORCE)). It
// never opens or changes another database. Queries run through sqljudge's
// PostgreSQL engine (read-only transactions, statement timeouts); the
// role must be allowed to create databases, and a superuser role is
// refused (engine.ErrPrivileged) unless allowSuperuser, as in eval.
type PostgresSandbox struct {
	cfg    *pgx.ConnConfig
	eng    *postgres.Engine
	prefix string
	n      atomic.Int64
}

var _ Sandbox = (*PostgresSandbox)(nil)

// NewPostgresSandbox connects to the server of dsn, vets its role (the
// engine's check, on the DSN's own database) and returns the sandbox.
func NewPostgresSandbox(ctx context.Context, dsn string, allowSuperuser bool) (*PostgresSandbox, error) {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("--db: %w", err)
	}
	eng, err := postgres.New(dsn, postgres.Options{MaxConns: 2, MaxRows: 10_000, AllowSuperuser: allowSuperuser})
	if err != nil {
		return nil, err
	}
	if err := eng.Check(ctx, cfg.Database); err != nil {
		eng.Close()
		return nil, err
	}
	var b [4]byte
	_, _ = rand.Read(b[:])
	return &PostgresSandbox{cfg: cfg, eng: eng, prefix: "sqljudge_equiv_" + hex.EncodeToString(b[:])}, nil
}

// Dialect returns engine.Postgres.
func (s *PostgresSandbox) Dialect() engine.Dialect { return engine.Postgres }

// Close closes the engine.
func (s *PostgresSandbox) Close() error { return s.eng.Close() }

// admin runs one statement on the DSN's own database, on a connection of
// its own.
func (s *PostgresSandbox) admin(ctx context.Context, stmt string) error {
	c, err := pgx.ConnectConfig(ctx, s.cfg)
	if err != nil {
		return err
	}
	defer c.Close(context.WithoutCancel(ctx))
	_, err = c.Exec(ctx, stmt)
	return err
}

// Open creates a scratch database and runs ddl in it.
func (s *PostgresSandbox) Open(ctx context.Context, ddl []string) (Scratch, error) {
	name := fmt.Sprintf("%s_%d", s.prefix, s.n.Add(1))
	if err := s.admin(ctx, "CREATE DATABASE "+engine.Postgres.QuoteIdent(name)); err != nil {
		return nil, fmt.Errorf("cannot create a scratch database: %w", err)
	}
	sc := &pgScratch{sb: s, name: name}
	cfg := s.cfg.Copy()
	cfg.Database = name
	c, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		sc.Close()
		return nil, err
	}
	sc.conn = c
	if len(ddl) > 0 {
		if _, err := c.Exec(ctx, strings.Join(ddl, ";\n")); err != nil {
			sc.Close()
			return nil, err
		}
	}
	return sc, nil
}

type pgScratch struct {
	sb   *PostgresSandbox
	name string
	conn *pgx.Conn
}

// Load empties the tables and runs the inserts, in one implicit
// transaction (the simple protocol's multi-statement query).
func (sc *pgScratch) Load(ctx context.Context, tables []string, inserts []string) error {
	var stmts []string
	if len(tables) > 0 {
		stmts = append(stmts, "TRUNCATE "+strings.Join(tables, ", "))
	}
	stmts = append(stmts, inserts...)
	if len(stmts) == 0 {
		return nil
	}
	_, err := sc.conn.Exec(ctx, strings.Join(stmts, ";\n"))
	return err
}

// Query runs q through the PostgreSQL engine, in a read-only transaction.
func (sc *pgScratch) Query(ctx context.Context, q string) (*result.Set, error) {
	return sc.sb.eng.Query(ctx, sc.name, q)
}

// Close drops the scratch database (with a context of its own, so that a
// run stopped by its budget or by the user still drops it).
func (sc *pgScratch) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if sc.conn != nil {
		_ = sc.conn.Close(ctx)
	}
	_ = sc.sb.eng.Release(sc.name)
	return sc.sb.admin(ctx, "DROP DATABASE IF EXISTS "+engine.Postgres.QuoteIdent(sc.name)+" WITH (FORCE)")
}
