package equiv

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/sqljudge/sqljudge/internal/catalog"
	"github.com/sqljudge/sqljudge/internal/engine"
	"github.com/sqljudge/sqljudge/internal/prove"
	"github.com/sqljudge/sqljudge/internal/prove/check"
)

// proveSchema adapts db to the prover's schema model on dialect d (nil
// for an engine the prover does not model: MySQL, whose collations make
// = on strings case-insensitive, and DuckDB). A column's family follows
// what the sandbox creates and the search draws: on SQLite the affinity
// of the type the sandbox declares (catalog.DeclType, then
// catalog.SQLiteAffinity) together with the column's catalog family
// (Integer: INTEGER affinity and whole numbers; Real or Decimal: REAL or
// NUMERIC affinity respectively, and numbers; Text: TEXT or BLOB affinity
// and strings); on PostgreSQL integers and strings; every other column is
// Other. NOT NULL is the engine's: declared NOT NULL, or in the PRIMARY
// KEY on PostgreSQL, but on SQLite only the INTEGER PRIMARY KEY
// (rowidAlias), since SQLite lets any other key column hold NULL
// (catalog.Column.KeyNotNull: a proof then covers the item's own
// database, not only the sandbox's, which declares every key column NOT
// NULL); the keys are the PRIMARY KEY and the UNIQUE sets (no two rows
// equal on them without NULLs).
func proveSchema(db *catalog.Database, d engine.Dialect) check.Schema {
	var cd check.Dialect
	switch d {
	case engine.SQLite:
		cd = check.SQLite
	case engine.Postgres:
		cd = check.Postgres
	default:
		return nil
	}
	out := &check.MapSchema{D: cd}
	for _, t := range db.Tables {
		ct := &check.Table{Name: engineName(d, t.Name, t.Unquoted)}
		for _, c := range t.Columns {
			notNull := c.NotNull
			if d == engine.SQLite && c.KeyNotNull && !rowidAlias(t) {
				notNull = false // SQLite lets this key column hold NULL
			}
			ct.Columns = append(ct.Columns, check.Column{Name: engineName(d, c.Name, c.Unquoted), Family: family(c, d), NotNull: notNull})
		}
		if len(t.PK) > 0 {
			ct.Keys = append(ct.Keys, check.Key{Cols: t.PK, Primary: true})
		}
		for _, u := range t.Uniques {
			ct.Keys = append(ct.Keys, check.Key{Cols: u})
		}
		for _, fk := range t.FKs {
			ct.FKs = append(ct.FKs, check.ForeignKey{Cols: fk.Cols, RefTable: fk.RefTable, RefCols: fk.RefCols})
		}
		out.Tables = append(out.Tables, ct)
	}
	return out
}

// engineName is a table's or column's name as engine d stores it: on
// PostgreSQL a name DDL wrote without quotes is folded to lower case (as
// the sandbox's DDL, catalog.Ident, has it), so that the kernel compares
// the query's names with the names PostgreSQL compares them with.
func engineName(d engine.Dialect, name string, unquoted bool) string {
	if d == engine.Postgres && unquoted {
		return strings.ToLower(name)
	}
	return name
}

// rowidAlias reports whether t's primary key is SQLite's INTEGER PRIMARY
// KEY, an alias of the rowid, the one key SQLite keeps from holding NULL
// without a NOT NULL (https://sqlite.org/lang_createtable.html#rowid).
func rowidAlias(t *catalog.Table) bool {
	return len(t.PK) == 1 && t.Columns[t.PK[0]].UpperType() == "INTEGER"
}

// family returns the prover's family of column c on dialect d.
func family(c catalog.Column, d engine.Dialect) check.Family {
	if d == engine.Postgres {
		switch c.Family {
		case catalog.Integer:
			return check.Int
		case catalog.Text:
			return check.Text
		}
		return check.Other
	}
	aff := catalog.SQLiteAffinity(catalog.DeclType(engine.SQLite, c))
	switch {
	case c.Family == catalog.Integer && aff == catalog.AffinityInteger:
		return check.Int
	case c.Family == catalog.Real && aff == catalog.AffinityReal, c.Family == catalog.Decimal && aff == catalog.AffinityNumeric:
		return check.Real
	case c.Family == catalog.Text && (aff == catalog.AffinityText || aff == catalog.AffinityBlob):
		return check.Text
	}
	return check.Other
}

// ProverNote is what the prover did for a pair (the record's "prover"):
// Result "proved", "no proof" (StoppedBy names the construct or rule that
// stopped it, Detail says more) or "skipped" (an engine the prover does not
// model); Solver is the SMT solver that discharged its obligations, "none"
// when Z3's executable was not found (then only proofs that need no
// obligation are found); Obligations counts those run on it.
type ProverNote struct {
	Result      string `json:"result"`
	StoppedBy   string `json:"stopped_by,omitempty"`
	Detail      string `json:"detail,omitempty"`
	Solver      string `json:"solver"`
	Obligations int    `json:"obligations,omitempty"`
}

// The results of ProverNote.
const (
	ProverProved  = "proved"
	ProverNoProof = "no proof"
	ProverSkipped = "skipped"
)

// prove runs the prover on the pair (unless o.NoProof); on a proof the
// search's cap drops to TripwireDatabases.
func (s *searcher) prove(ctx context.Context) {
	if s.o.NoProof {
		return
	}
	s.proof, s.out.Prover = ProveQueries(ctx, s.p.Q1, s.p.Q2, s.schema.Database, s.o.Sandbox.Dialect(), s.o.Rule, s.o.Solver)
	if s.proof != nil && s.o.MaxDatabases > TripwireDatabases {
		s.o.MaxDatabases = TripwireDatabases
		s.out.Search.MaxDatabases = TripwireDatabases
	}
}

// ProveQueries runs the prover alone on q1 and q2 over schema db (as
// ReadSchema or catalog.ParseDDL return it), under rule, on dialect d's
// semantics (SQLite or PostgreSQL; any other is skipped), with solver
// discharging the obligations (nil: only proofs that need none): the
// certificate, or nil, and the note saying what the prover did. Each
// column's family is read from its catalog family and, on SQLite, the
// affinity of the type the sandbox declares it with (proveSchema).
func ProveQueries(ctx context.Context, q1, q2 string, db *catalog.Database, d engine.Dialect, rule Rule, solver check.Solver) (*check.Certificate, *ProverNote) {
	note := &ProverNote{Solver: "none"}
	if solver != nil {
		note.Solver = solver.Name()
	}
	ps := proveSchema(db, d)
	if ps == nil {
		note.Result, note.Detail = ProverSkipped, fmt.Sprintf("the prover models SQLite and PostgreSQL, not %s", d)
		return nil, note
	}
	if rule == "" {
		rule = RuleBag
	}
	a := prove.Prove(ctx, q1, q2, ps, prove.Options{Rule: string(rule), Solver: solver})
	note.Obligations = a.SolverCalls
	if !a.Proved() {
		note.Result, note.StoppedBy, note.Detail = ProverNoProof, a.Stopped, a.Detail
		return nil, note
	}
	if b, err := json.Marshal(a.Certificate); err != nil || len(b) > MaxProofBytes {
		note.Result, note.StoppedBy = ProverNoProof, "proof size"
		note.Detail = fmt.Sprintf("a proof of %d bytes of JSON, over the %d a record keeps", len(b), MaxProofBytes)
		return nil, note
	}
	note.Result = ProverProved
	return a.Certificate, note
}

// MaxProofBytes bounds a proof's JSON in a record (results.jsonl, serve's
// response): a proof over it (queries of many kilobytes, rewritten step
// after step) is not reported, and the search decides the pair as without
// one.
const MaxProofBytes = 64 << 10

// ReadSchema reads a pair's schema as Decide does, into the catalog
// model: its DDL (catalog.ParseDDL), or the SQLite database at p.DB
// (catalog.Read, ordered by references, declared types upper-cased); a
// server's db_id needs the sandbox: not here.
func ReadSchema(ctx context.Context, p Pair) (*catalog.Database, error) {
	s := &searcher{p: p}
	if p.DBID != "" && strings.TrimSpace(p.Schema) == "" {
		return nil, fmt.Errorf("equiv: ReadSchema reads DDL or a SQLite file, not a server's db_id")
	}
	if err := s.loadSchema(ctx); err != nil {
		return nil, err
	}
	return s.schema.Database, nil
}

// reconcile sets the verdict of a proved pair from the search's: a
// witness against a proof makes the pair Unknown (ReasonDisagree), with
// both kept in the record; no witness makes it EquivalentProved; a search
// that could not decide keeps its Unknown (the queries may not run at
// all), the proof then unreported.
func (s *searcher) reconcile() {
	if s.proof == nil {
		return
	}
	switch s.out.Verdict {
	case Inequivalent:
		s.out.Verdict, s.out.Reason, s.out.Proof = Unknown, ReasonDisagree, s.proof
	case EquivalentBounded:
		s.out.Verdict, s.out.Proof = EquivalentProved, s.proof
	default:
		s.out.Prover.Detail = "not reported as the verdict: the search could not run the pair (" + s.out.Reason + ")"
	}
}

// ProverSetting names what the equiv metric's proofs depend on, for
// eval's fingerprint: "z3" when Z3's executable is on PATH, "no solver"
// otherwise.
func ProverSetting() string {
	if _, err := check.FindZ3(); err != nil {
		return "no solver"
	}
	return "z3"
}
