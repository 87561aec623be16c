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
	"github.com/sqljudge/sqljudge/internal/prove/explain"
)

// proveSchema adapts db to the prover's schema model on dialect d (nil
// for an engine the prover does not model: MySQL, whose collations make
// = on strings case-insensitive, and DuckDB). Each column is
// proveColumn's. NOT NULL is the engine's: declared NOT NULL, or in the
// PRIMARY KEY on PostgreSQL, but on SQLite only the INTEGER PRIMARY KEY
// (rowidAlias), since SQLite lets any other key column hold NULL
// (catalog.Column.KeyNotNull: a proof then covers the item's own
// database, not only the sandbox's, which declares every key column NOT
// NULL); the keys are the PRIMARY KEY and the UNIQUE sets (no two rows
// equal on them without NULLs; the catalog leaves out partial unique
// indexes, those over expressions and those under another collation than
// the column's), none for a SQLite table whose CREATE statement the
// catalog could not read (catalog.Table.Undeclared).
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
			ct.Columns = append(ct.Columns, proveColumn(t, c, d))
		}
		if d == engine.SQLite && t.Undeclared {
			out.Tables = append(out.Tables, ct)
			continue
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

// proveColumn is column c of table t in the prover's model on dialect d:
// its name as the engine stores it (engineName), NOT NULL (see
// proveSchema), its collation as declared (unknown, "?", on a SQLite
// table whose CREATE statement the catalog could not read), on SQLite the
// affinity of its declared type, and its family (proveFamily).
func proveColumn(t *catalog.Table, c catalog.Column, d engine.Dialect) check.Column {
	notNull := c.NotNull
	if d == engine.SQLite && c.KeyNotNull && !rowidAlias(t) {
		notNull = false // SQLite lets this key column hold NULL
	}
	out := check.Column{Name: engineName(d, c.Name, c.Unquoted), NotNull: notNull, Collation: strings.ToLower(c.Collation), Family: proveFamily(c, d)}
	if d == engine.SQLite {
		out.Affinity = check.AffinityOf(c.Type)
		if t.Undeclared {
			out.Collation = "?"
		}
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
// without a NOT NULL (https://sqlite.org/lang_createtable.html#rowid): a
// single column declared exactly INTEGER, not as a column constraint
// PRIMARY KEY DESC, on a table whose CREATE statement the catalog read.
func rowidAlias(t *catalog.Table) bool {
	return len(t.PK) == 1 && t.Columns[t.PK[0]].UpperType() == "INTEGER" && !t.PKDesc && !t.Undeclared
}

// proveFamily returns the prover's family of column c on dialect d. On
// SQLite the affinity of its declared type must be the one the sandbox
// declares it with too (catalog.DeclType), and then: Int for an Integer
// column of INTEGER affinity, Real for a Real one of REAL affinity,
// Numeric for a Real or Decimal one of NUMERIC affinity, Text for a Text
// one of TEXT affinity; a column without a type (BLOB affinity, which
// keeps whatever storage class it is given) or any other is Other. On
// PostgreSQL, Int for an integer type, Text for a string type other than
// CHAR(n) (bpchar, whose = ignores trailing blanks while its values are
// padded); Other else. The kernel further reads a column under a
// collation of its own as Other (check.Column).
func proveFamily(c catalog.Column, d engine.Dialect) check.Family {
	if d == engine.Postgres {
		switch {
		case c.Family == catalog.Integer:
			return check.Int
		case c.Family == catalog.Text && !bpchar(c):
			return check.Text
		}
		return check.Other
	}
	aff := check.AffinityOf(c.Type)
	if check.AffinityOf(catalog.DeclType(engine.SQLite, c)) != aff {
		return check.Other
	}
	switch {
	case c.Family == catalog.Integer && aff == check.AffinityInteger:
		return check.Int
	case c.Family == catalog.Real && aff == check.AffinityReal:
		return check.Real
	case (c.Family == catalog.Real || c.Family == catalog.Decimal) && aff == check.AffinityNumeric:
		return check.Numeric
	case c.Family == catalog.Text && aff == check.AffinityText:
		return check.Text
	}
	return check.Other
}

// bpchar reports whether a PostgreSQL column is CHAR(n) (character,
// bpchar), not VARCHAR or TEXT.
func bpchar(c catalog.Column) bool {
	t := c.UpperType()
	switch {
	case strings.Contains(t, "VAR"):
		return false
	case strings.HasPrefix(t, "CHAR"), strings.HasPrefix(t, "BPCHAR"), strings.HasPrefix(t, "NCHAR"), strings.HasPrefix(t, "NATIONAL CHAR"):
		return true
	}
	return false
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
	// BrokenFact is the fact of a proof that a row of the pair's
	// database breaks (StoppedBy StoppedByData): no proof.
	BrokenFact *BrokenFact `json:"broken_fact,omitempty"`
}

// StoppedByData is ProverNote.StoppedBy when a proof was found but a fact
// it rests on does not hold on the pair's database (checkProofFacts), or
// could not be checked there.
const StoppedByData = "data"

// The results of ProverNote.
const (
	ProverProved  = "proved"
	ProverNoProof = "no proof"
	ProverSkipped = "skipped"
)

// proverShare is the part of the budget the prover may take at most (a
// quarter): a query whose text keeps the solver busy (a literal of 100
// kB) leaves the search the rest, instead of ending the budget before any
// database is tried.
const proverShare = 4

// prove runs the prover on the pair (unless o.NoProof), within a
// proverShare of the budget; on a proof the search's cap drops to
// TripwireDatabases.
func (s *searcher) prove(ctx context.Context) {
	if s.o.NoProof {
		return
	}
	pctx, cancel := context.WithTimeout(ctx, s.o.Budget/proverShare)
	defer cancel()
	if s.o.prover != nil {
		s.proof, s.out.Prover = s.o.prover(pctx, s.p.Q1, s.p.Q2, s.schema.Database)
	} else {
		s.proof, s.out.Prover = ProveQueries(pctx, s.p.Q1, s.p.Q2, s.schema.Database, s.o.Sandbox.Dialect(), s.o.Rule, s.o.Solver)
	}
	if s.proof != nil {
		s.checkData(ctx)
	}
	if s.proof != nil && s.o.MaxDatabases > TripwireDatabases {
		s.o.MaxDatabases = TripwireDatabases
		s.out.Search.MaxDatabases = TripwireDatabases
	}
}

// checkData drops the proof when a fact it rests on does not hold on the
// pair's database, or could not be checked there (checkProofFacts): the
// record's prover then says no proof, stopped by "data", with the fact and
// the row that breaks it.
func (s *searcher) checkData(ctx context.Context) {
	b, err := s.checkProofFacts(ctx)
	if err == nil && b == nil {
		return
	}
	s.proof = nil
	s.out.Prover.Result, s.out.Prover.StoppedBy, s.out.Prover.BrokenFact = ProverNoProof, StoppedByData, b
	if err != nil {
		s.out.Prover.Detail = fmt.Sprintf("a proof was found, but a fact it rests on could not be checked on the database's rows: %v", err)
		return
	}
	row, _ := json.Marshal(b.Row)
	s.out.Prover.Detail = fmt.Sprintf("a proof was found, but it rests on %s, which a row of the database breaks: %s", b.Holds, row)
}

// proveFunc is the prover ProveQueries runs (a test swaps in one whose
// renaming is wrong, to show engineReading catches it).
var proveFunc = prove.Prove

// StoppedByEngineReading is ProverNote.StoppedBy when a proof was found
// but SQLite reads one of its renaming steps otherwise than the kernel
// (engineReading): the kernel's name resolution is not trusted.
const StoppedByEngineReading = "engine reading"

// engineReading validates the renaming steps of cert against SQLite's
// own name resolution (explain.Validate) on a scratch database holding
// db's tables (catalog's CreateStatements, as the sandbox creates them);
// on dialect d other than SQLite it checks nothing (see docs/equiv.md,
// Limits). The error says which step SQLite reads otherwise, or why the
// scratch database could not be made.
func engineReading(ctx context.Context, db *catalog.Database, d engine.Dialect, cert *check.Certificate) error {
	if d != engine.SQLite {
		return nil
	}
	sc, err := explain.NewScratch(ctx, db.CreateStatements(engine.SQLite))
	if err != nil {
		return fmt.Errorf("its renaming could not be compared with SQLite's reading: %w", err)
	}
	defer sc.Close()
	return explain.Validate(ctx, sc, cert)
}

// ProveQueries runs the prover alone on q1 and q2 over schema db (as
// ReadSchema or catalog.ParseDDL return it), under rule, on dialect d's
// semantics (SQLite or PostgreSQL; any other is skipped), with solver
// discharging the obligations (nil: only proofs that need none): the
// certificate, or nil, and the note saying what the prover did. Each
// column's family, affinity and collation are read from the catalog
// (proveColumn). On SQLite a proof whose renaming SQLite reads otherwise
// (engineReading) is dropped: no proof, stopped by
// StoppedByEngineReading.
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
	a := proveFunc(ctx, q1, q2, ps, prove.Options{Rule: string(rule), Solver: solver})
	note.Obligations = a.SolverCalls
	if !a.Proved() {
		note.Result, note.StoppedBy, note.Detail = ProverNoProof, a.Stopped, a.Detail
		return nil, note
	}
	if err := engineReading(ctx, db, d, a.Certificate); err != nil {
		note.Result, note.StoppedBy = ProverNoProof, StoppedByEngineReading
		note.Detail = "a proof was found, but " + err.Error()
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
	switch {
	case s.out.Verdict == Inequivalent && s.out.Witness.Q2Fails != nil:
		// A proof holds where both queries run; q2 failing where q1 runs
		// does not contradict it, and decides.
		s.out.Prover.Detail = "not reported as the verdict: q2 fails on a database on which q1 runs"
	case s.out.Verdict == Inequivalent:
		s.out.Verdict, s.out.Reason, s.out.Proof = Unknown, ReasonDisagree, s.proof
	case s.out.Verdict == EquivalentBounded:
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
