package dbload

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	mysqldrv "github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/sqljudge/sqljudge/internal/catalog"
	"github.com/sqljudge/sqljudge/internal/engine"
	"github.com/sqljudge/sqljudge/internal/engine/mysql"
	"github.com/sqljudge/sqljudge/internal/engine/open"
	"github.com/sqljudge/sqljudge/internal/engine/postgres"

	_ "github.com/mattn/go-sqlite3" // the "sqlite3" driver, to write SQLite files
)

// Options configure Load.
type Options struct {
	// Replace drops (or overwrites) a database of the same name; without
	// it an existing database is an error.
	Replace bool
	// Now is the clock of CURRENT_DATE, NOW() and friends for the
	// translating targets (SQLite, MySQL, DuckDB); zero means the time of
	// the load. A PostgreSQL load uses the server's clock.
	Now time.Time
	// Prefix is put before every database name ("t_" makes academic
	// t_academic; for SQLite and DuckDB, the file t_academic.sqlite).
	Prefix string
	// Reader, for a PostgreSQL target, names a login role that eval can
	// grade as (see GrantReader); "" grants nothing. ReaderPassword is its
	// password when Load creates it ("" creates it without one).
	Reader, ReaderPassword string
}

// Report says what Load did with one dump.
type Report struct {
	// Database is the database created (a server database, or a file).
	Database string
	// Tables and Rows count what was created and inserted; for PostgreSQL,
	// Statements counts the statements run.
	Tables, Rows, Statements int
	// Skipped counts the statements a translating target did not need
	// (SET, ALTER, CREATE INDEX, ...), by first keyword.
	Skipped map[string]int
}

// ErrTarget is wrapped by errors about the target DSN itself.
var ErrTarget = errors.New("bad --dsn")

// ErrExists is wrapped by the error of a load whose database already
// exists when Options.Replace is false.
var ErrExists = errors.New("database exists")

var safeDBName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// Load creates one database per dump in the target dsn names and fills it:
//
//	postgres://user@host:port/db?...  a PostgreSQL server (connect via db, usually postgres)
//	mysql://user:pass@host:port/      a MySQL or MariaDB server (mysql:<go-sql-driver DSN> too)
//	sqlite:DIR or DIR                 SQLite files DIR/<name>.sqlite (DIR is created)
//	duckdb:DIR                        DuckDB files DIR/<name>.duckdb (needs a binary built with -tags duckdb)
//
// A database is named Prefix + the dump's name. Reports come in dump order.
func Load(ctx context.Context, dsn string, dumps []*Dump, o Options) ([]Report, error) {
	if o.Now.IsZero() {
		o.Now = time.Now()
	}
	scheme, rest, _ := strings.Cut(dsn, ":")
	d, known := engine.ParseDialect(scheme)
	if !known {
		if strings.Contains(dsn, "://") {
			return nil, fmt.Errorf("%w: unknown scheme %q (want postgres://, mysql://, sqlite:DIR, duckdb:DIR or a folder)", ErrTarget, scheme)
		}
		d, rest = engine.SQLite, dsn // a folder
	}
	if o.Reader != "" && d != engine.Postgres {
		return nil, fmt.Errorf("%w: a reader role (--reader) is made on a PostgreSQL server only", ErrTarget)
	}
	// The dialect is chosen here, once.
	var load func(context.Context, *Dump, string) (Report, error)
	switch d {
	case engine.Postgres:
		load = func(ctx context.Context, dump *Dump, name string) (Report, error) {
			return loadPostgres(ctx, dsn, dump, name, o)
		}
	case engine.MySQL:
		if !strings.HasPrefix(rest, "//") {
			dsn = rest
		}
		load = func(ctx context.Context, dump *Dump, name string) (Report, error) {
			return loadMySQL(ctx, dsn, dump, name, o)
		}
	default:
		tg := targetFor(d)
		load = func(ctx context.Context, dump *Dump, name string) (Report, error) {
			return loadFile(ctx, tg, rest, dump, name, o)
		}
	}
	var out []Report
	for _, d := range dumps {
		name := o.Prefix + d.Name
		if !safeDBName.MatchString(name) {
			return out, fmt.Errorf("%s: database name %q: use letters, digits and _ (rename the file)", d.Path, name)
		}
		r, err := load(ctx, d, name)
		if err != nil {
			return out, err
		}
		out = append(out, r)
	}
	return out, nil
}

func skippedCounts(ev *evaluated) map[string]int {
	m := map[string]int{}
	for _, s := range ev.Skipped {
		m[strings.ToUpper(s.Keyword)]++
	}
	return m
}

// loadPostgres creates database name and runs the dump in it verbatim,
// statement by statement in autocommit mode, as psql -f does (but stopping
// at the first error, which it reports with the statement's line; the
// database keeps what ran before it, and --replace starts over).
func loadPostgres(ctx context.Context, dsn string, d *Dump, name string, o Options) (Report, error) {
	rep := Report{Database: name}
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return rep, fmt.Errorf("%w: %v", ErrTarget, err)
	}
	admin, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return rep, fmt.Errorf("connect to %s: %w", cfg.Host, err)
	}
	defer admin.Close(context.WithoutCancel(ctx))
	if o.Reader != "" {
		if _, err := checkReader(ctx, admin, o.Reader); err != nil {
			return rep, err
		}
	}
	ident := pgx.Identifier{name}.Sanitize()
	var exists bool
	if err := admin.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", name).Scan(&exists); err != nil {
		return rep, err
	}
	if exists && !o.Replace {
		return rep, fmt.Errorf("%s: %w: %s is on the server (use --replace to drop it first)", d.Path, ErrExists, name)
	}
	if exists {
		if _, err := admin.Exec(ctx, "DROP DATABASE "+ident+" WITH (FORCE)"); err != nil {
			return rep, fmt.Errorf("drop database %s: %w", name, err)
		}
	}
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+ident+" ENCODING 'UTF8' TEMPLATE template0"); err != nil {
		return rep, fmt.Errorf("create database %s: %w", name, err)
	}
	dcfg := cfg.Copy()
	dcfg.Database = name
	if dcfg.RuntimeParams == nil {
		dcfg.RuntimeParams = map[string]string{}
	}
	dcfg.RuntimeParams["TimeZone"] = "UTC"
	dcfg.RuntimeParams["client_encoding"] = "UTF8"
	c, err := pgx.ConnectConfig(ctx, dcfg)
	if err != nil {
		return rep, fmt.Errorf("connect to %s: %w", name, err)
	}
	defer c.Close(context.WithoutCancel(ctx))
	pc := c.PgConn()
	for _, s := range d.Stmts {
		var err error
		if s.copy != nil {
			data := strings.Join(s.copy.Lines, "\n")
			if data != "" {
				data += "\n"
			}
			_, err = pc.CopyFrom(ctx, strings.NewReader(data), s.Text)
		} else {
			_, err = pc.Exec(ctx, s.Text).ReadAll()
		}
		if err != nil {
			msg := err.Error()
			var pe *pgconn.PgError
			if errors.As(err, &pe) {
				msg = pe.Message + " (SQLSTATE " + pe.Code + ")"
			}
			return rep, &Error{File: d.Path, Line: s.Line, Msg: "PostgreSQL: " + msg}
		}
		rep.Statements++
		switch s.Kind {
		case CreateTable:
			rep.Tables++
		case Insert, Copy:
			rep.Rows += len(s.Insert.Rows)
		}
	}
	if o.Reader != "" {
		if err := GrantReader(ctx, admin, c, name, o.Reader, o.ReaderPassword); err != nil {
			return rep, err
		}
	}
	return rep, nil
}

// GrantReader makes role a reader of database db, the role eval should
// grade as: it creates role (LOGIN, with password when one is given) if
// the server has no such role, refuses a role that may administer the
// server (superuser, or a member of pg_read_server_files,
// pg_write_server_files, pg_execute_server_program or pg_signal_backend),
// grants CONNECT on db, USAGE on its schemas and SELECT on their tables,
// and revokes EXECUTE on pg_terminate_backend and pg_cancel_backend from
// PUBLIC in db, since a role may signal its own sessions (the other
// workers of a run). admin is a connection to any database of the server,
// conn one to db, both as a role that may do all this.
func GrantReader(ctx context.Context, admin, conn *pgx.Conn, db, role, password string) error {
	exists, err := checkReader(ctx, admin, role)
	if err != nil {
		return err
	}
	id := pgx.Identifier{role}.Sanitize()
	if !exists {
		q := "CREATE ROLE " + id + " LOGIN"
		if password != "" {
			q += " PASSWORD " + quoteLiteral(password)
		}
		if _, err := admin.Exec(ctx, q); err != nil {
			return fmt.Errorf("create reader role %s: %w", role, err)
		}
	}
	stmts := []string{"GRANT CONNECT ON DATABASE " + pgx.Identifier{db}.Sanitize() + " TO " + id}
	rows, err := conn.Query(ctx, "SELECT nspname FROM pg_namespace WHERE nspname NOT LIKE 'pg\\_%' AND nspname <> 'information_schema' ORDER BY nspname")
	if err != nil {
		return fmt.Errorf("reader role %s: %w", role, err)
	}
	schemas, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return fmt.Errorf("reader role %s: %w", role, err)
	}
	for _, n := range schemas {
		ns := pgx.Identifier{n}.Sanitize()
		stmts = append(stmts, "GRANT USAGE ON SCHEMA "+ns+" TO "+id, "GRANT SELECT ON ALL TABLES IN SCHEMA "+ns+" TO "+id)
	}
	stmts = append(stmts, `DO $$ DECLARE f regprocedure; BEGIN
		FOR f IN SELECT oid::regprocedure FROM pg_proc WHERE proname IN ('pg_terminate_backend', 'pg_cancel_backend') LOOP
			EXECUTE 'REVOKE EXECUTE ON FUNCTION ' || f || ' FROM PUBLIC';
		END LOOP; END $$`)
	for _, q := range stmts {
		if _, err := conn.Exec(ctx, q); err != nil {
			return fmt.Errorf("reader role %s on %s: %s: %w", role, db, strings.SplitN(q, "\n", 2)[0], err)
		}
	}
	return nil
}

// checkReader tells whether role exists, and fails when its name is not
// a plain identifier or it may administer the server.
func checkReader(ctx context.Context, admin *pgx.Conn, role string) (bool, error) {
	if !safeDBName.MatchString(role) {
		return false, fmt.Errorf("%w: reader role %q: use letters, digits and _", ErrTarget, role)
	}
	var exists bool
	if err := admin.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = $1)", role).Scan(&exists); err != nil {
		return false, fmt.Errorf("reader role %s: %w", role, err)
	}
	if !exists {
		return false, nil
	}
	pe, err := postgres.VetNamedRole(ctx, admin, role)
	if err != nil {
		return false, fmt.Errorf("reader role %s: %w", role, err)
	}
	if pe != nil {
		return false, fmt.Errorf("%w: reader role %s may administer the server (%s): name another role", ErrTarget, role, pe.Risk("a prediction"))
	}
	return true, nil
}

// quoteLiteral quotes s as a PostgreSQL string literal.
func quoteLiteral(s string) string {
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}

// flatName returns a table's name in a target without schemas.
func flatName(t *Table) string { return t.Spelled }

// checkFlat fails when two tables get the same name once schemas are
// dropped (names compare case-insensitively, as in SQLite and MySQL's
// column names).
func checkFlat(d *Dump, ev *evaluated) error {
	seen := map[string]string{}
	for _, td := range ev.Tables {
		k := strings.ToLower(flatName(td.Table))
		q := qualified(td.Table.Schema, td.Table.Name)
		if prev, dup := seen[k]; dup {
			return fmt.Errorf("%s: tables %s and %s have the same name once schemas are dropped", d.Path, prev, q)
		}
		seen[k] = q
	}
	return nil
}

// targetTable is t as a table of tg (catalog.Table): schema-qualified
// where tg keeps schemas and t is not in public, else its name alone;
// every column with its type mapped for tg (columnType) and NOT NULL.
func targetTable(tg target, t *Table) *catalog.Table {
	out := &catalog.Table{Name: flatName(t)}
	if tg.keepsSchemas() && t.Schema != "" && t.Schema != "public" {
		out.Schema = t.Schema
	}
	for i := range t.Columns {
		c := &t.Columns[i]
		out.Columns = append(out.Columns, catalog.Column{Name: c.Spelled, Type: tg.columnType(c), NotNull: c.NotNull})
	}
	return out
}

// tableIdent returns the quoted name of t's table in tg (catalog.TableIdent
// of targetTable).
func tableIdent(tg target, t *Table) string {
	return catalog.TableIdent(tg.dialect(), targetTable(tg, t))
}

// createTableSQL writes a table's CREATE TABLE for a target with
// catalog's renderer: columns, their types as columnType maps them, NOT
// NULL, then the target's table options.
func createTableSQL(tg target, td *tableData) string {
	db := &catalog.Database{Tables: []*catalog.Table{targetTable(tg, td.Table)}}
	mapped := func(_ engine.Dialect, c catalog.Column) string { return c.Type }
	return db.CreateStatementsWith(tg.dialect(), mapped)[0] + tg.tableOptions()
}

// insertRows writes td's rows with multi-row INSERTs of bound values.
func insertRows(ctx context.Context, tg target, tx *sql.Tx, td *tableData) error {
	if len(td.Rows) == 0 {
		return nil
	}
	t := td.Table
	name := tableIdent(tg, t)
	ncol := len(t.Columns)
	per := max(1, min(500, 30000/ncol)) // stay under bound-parameter limits
	one := "(" + strings.TrimSuffix(strings.Repeat("?, ", ncol), ", ") + ")"
	for start := 0; start < len(td.Rows); start += per {
		end := min(start+per, len(td.Rows))
		var args []any
		for _, r := range td.Rows[start:end] {
			for _, v := range r {
				args = append(args, tg.stored(v))
			}
		}
		q := "INSERT INTO " + name + " VALUES " + strings.TrimSuffix(strings.Repeat(one+", ", end-start), ", ")
		if _, err := tx.ExecContext(ctx, q, args...); err != nil {
			return fmt.Errorf("insert into %s: %w", name, err)
		}
	}
	return nil
}

// fill creates the dump's tables (and DuckDB schemas) and rows through db.
func fill(ctx context.Context, tg target, db *sql.DB, d *Dump, ev *evaluated, rep *Report) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if tg.keepsSchemas() {
		for _, s := range ev.Schemas {
			if s == "public" {
				continue
			}
			if _, err := tx.ExecContext(ctx, "CREATE SCHEMA IF NOT EXISTS "+tg.dialect().QuoteIdent(s)); err != nil {
				return fmt.Errorf("%s: create schema %s: %w", d.Path, s, err)
			}
		}
	}
	for _, td := range ev.Tables {
		if _, err := tx.ExecContext(ctx, createTableSQL(tg, td)); err != nil {
			return fmt.Errorf("%s: create table %s: %w", d.Path, td.Table.Name, err)
		}
		if err := insertRows(ctx, tg, tx, td); err != nil {
			return fmt.Errorf("%s: %w", d.Path, err)
		}
		rep.Tables++
		rep.Rows += len(td.Rows)
	}
	return tx.Commit()
}

// loadFile builds database file dir/name.sqlite or dir/name.duckdb.
func loadFile(ctx context.Context, tg target, dir string, d *Dump, name string, o Options) (Report, error) {
	rep := Report{Database: name}
	if dir == "" {
		return rep, fmt.Errorf("%w: no folder given", ErrTarget)
	}
	ev, err := d.evaluate(o.Now)
	if err != nil {
		return rep, err
	}
	rep.Skipped = skippedCounts(ev)
	if !tg.keepsSchemas() {
		if err := checkFlat(d, ev); err != nil {
			return rep, err
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return rep, err
	}
	path := filepath.Join(dir, name+tg.dialect().FileExt())
	rep.Database = path
	if _, err := os.Stat(path); err == nil {
		if !o.Replace {
			return rep, fmt.Errorf("%s: %w: %s (use --replace to overwrite it)", d.Path, ErrExists, path)
		}
	}
	// Build beside the target and rename, so a failed load leaves nothing
	// half-written under the final name.
	tmp := path + ".loading"
	_ = os.Remove(tmp)
	driver := tg.driver()
	if _, _, err := open.OptionalEngine(tg.dialect()); err != nil {
		return rep, fmt.Errorf("%w: %v", ErrTarget, err)
	}
	db, err := sql.Open(driver, tmp)
	if err != nil {
		return rep, err
	}
	db.SetMaxOpenConns(1)
	err = fill(ctx, tg, db, d, ev, &rep)
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(tmp)
		os.Remove(tmp + ".wal")
		return rep, err
	}
	if err := os.Rename(tmp, path); err != nil {
		return rep, err
	}
	return rep, nil
}

// loadMySQL creates database name on a MySQL/MariaDB server and fills it.
func loadMySQL(ctx context.Context, dsn string, d *Dump, name string, o Options) (Report, error) {
	rep := Report{Database: name}
	ev, err := d.evaluate(o.Now)
	if err != nil {
		return rep, err
	}
	rep.Skipped = skippedCounts(ev)
	if err := checkFlat(d, ev); err != nil {
		return rep, err
	}
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		return rep, fmt.Errorf("%w: %v", ErrTarget, err)
	}
	cfg.DBName = ""
	if cfg.Params == nil {
		cfg.Params = map[string]string{}
	}
	cfg.Params["time_zone"] = "'+00:00'"
	admin, err := openMySQL(cfg)
	if err != nil {
		return rep, err
	}
	defer admin.Close()
	var n int
	if err := admin.QueryRowContext(ctx, "SELECT COUNT(*) FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?", name).Scan(&n); err != nil {
		return rep, fmt.Errorf("connect to the MySQL server: %w", err)
	}
	if n > 0 && !o.Replace {
		return rep, fmt.Errorf("%s: %w: %s is on the server (use --replace to drop it first)", d.Path, ErrExists, name)
	}
	ident := engine.MySQL.QuoteIdent(name)
	for _, q := range []string{"DROP DATABASE IF EXISTS " + ident, "CREATE DATABASE " + ident + " CHARACTER SET utf8mb4"} {
		if _, err := admin.ExecContext(ctx, q); err != nil {
			return rep, fmt.Errorf("%s: %w", q, err)
		}
	}
	dcfg := cfg.Clone()
	dcfg.DBName = name
	db, err := openMySQL(dcfg)
	if err != nil {
		return rep, err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if err := fill(ctx, mysqlTarget{}, db, d, ev, &rep); err != nil {
		return rep, err
	}
	return rep, nil
}

func openMySQL(cfg *mysqldrv.Config) (*sql.DB, error) {
	c, err := mysqldrv.NewConnector(cfg)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrTarget, err)
	}
	return sql.OpenDB(c), nil
}
