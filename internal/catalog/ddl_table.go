package catalog

import (
	"fmt"
	"strings"

	"github.com/sqljudge/sqljudge/internal/sqllex"
)

// statement reads one statement: a CREATE TABLE (returned), a CREATE
// UNIQUE INDEX (returned as a pending unique set, p.index its name), or a
// statement that is skipped.
func (p *ddlParser) statement() (*Table, []pendingFK, error) {
	switch {
	case p.is("CREATE", "UNIQUE", "INDEX"):
		p.i += 3
		fks, err := p.uniqueIndex()
		return nil, fks, err
	case p.is("CREATE", "INDEX"), p.is("DROP"), p.is("SET"), p.is("CREATE", "SCHEMA"), p.is("CREATE", "DATABASE"), p.is("USE"), p.is("BEGIN"), p.is("COMMIT"), p.is("PRAGMA"):
		return nil, nil, nil
	case p.accept("CREATE"):
		temp := p.accept("TEMP") || p.accept("TEMPORARY")
		if p.is("UNLOGGED") {
			p.leave("")
			p.i++
		}
		if !p.accept("TABLE") {
			if p.i < len(p.toks) {
				return nil, nil, fmt.Errorf("expected TABLE (%s)", p.nearMsg())
			}
			return nil, nil, p.syntax()
		}
		return p.createTable(temp)
	}
	return nil, nil, fmt.Errorf("expected CREATE TABLE (%s)", p.nearMsg())
}

// tableName reads [schema .] name of CREATE TABLE: main and temp are
// SQLite's schemas; another is PostgreSQL's (SQLite: "unknown database").
func (p *ddlParser) tableName(temp bool) (string, bool, error) {
	n, err := p.name()
	if err != nil {
		return "", false, err
	}
	quoted := p.quoted
	if !p.accept(".") {
		return n, quoted, nil
	}
	schema := n
	if n, err = p.name(); err != nil {
		return "", false, err
	}
	switch {
	case temp:
		return "", false, p.fail("temporary table name must be unqualified")
	case !asciiFold(schema, "main") && !asciiFold(schema, "temp"):
		p.leave("unknown database " + schema)
	}
	return n, p.quoted, nil
}

// ifNotExistsClause reads an optional IF NOT EXISTS: IF is its start to
// SQLite wherever it may come, never a name.
func (p *ddlParser) ifNotExistsClause() (bool, error) {
	if !p.accept("IF") {
		return false, nil
	}
	return true, p.expect("NOT", "EXISTS")
}

// createTable reads [IF NOT EXISTS] name ( columns [constraints] )
// [options], and checks the table as SQLite's sqlite3EndTable does.
func (p *ddlParser) createTable(temp bool) (*Table, []pendingFK, error) {
	ine, err := p.ifNotExistsClause()
	if err != nil {
		return nil, nil, err
	}
	p.ifNotExists = ine
	n, quoted, err := p.tableName(temp)
	if err != nil {
		return nil, nil, err
	}
	if p.is("AS") {
		return nil, nil, p.unsupported("CREATE TABLE … AS SELECT: its columns are a query's")
	}
	t := &Table{Name: n, Unquoted: !quoted}
	if err := p.expect("("); err != nil {
		return nil, nil, err
	}
	fks, err := p.elements(t)
	if err != nil {
		return nil, nil, err
	}
	for i := range fks {
		fks[i].table = t.Name
	}
	opts, err := p.tableOptions()
	if err != nil {
		return nil, nil, err
	}
	if err := p.endTable(t, opts); err != nil {
		return nil, nil, err
	}
	return t, fks, nil
}

// elements reads the column definitions and table constraints up to the
// closing parenthesis: columns first, then constraints, a comma before
// the first and optional between the others (parse.y: columnlist
// conslist_opt, tconscomma).
func (p *ddlParser) elements(t *Table) ([]pendingFK, error) {
	var fks []pendingFK
	for first := true; ; first = false {
		var more []pendingFK
		var err error
		switch {
		case p.tableConstraintNext():
			if first {
				return nil, p.syntax()
			}
			p.inConstraints = true
			more, err = p.tableConstraint(t)
		case p.mysqlIndexNext():
			p.leave("")
			p.inConstraints = true
			err = p.mysqlIndex()
		default:
			if p.inConstraints {
				p.leave("") // PostgreSQL and MySQL take columns after constraints
			}
			more, err = p.column(t)
		}
		if err != nil {
			return nil, err
		}
		fks = append(fks, more...)
		switch {
		case p.accept(")"):
			return fks, nil
		case p.accept(","):
			if p.is(")") {
				return nil, p.syntax()
			}
		case p.inConstraints && (p.tableConstraintNext() || p.mysqlIndexNext()):
		default:
			return nil, p.syntax()
		}
	}
}

// tableConstraintNext reports whether a table constraint starts here.
func (p *ddlParser) tableConstraintNext() bool {
	return p.is("CONSTRAINT") || p.is("PRIMARY") || p.is("UNIQUE") || p.is("CHECK") || p.is("FOREIGN")
}

// tableConstraint reads one table constraint (tcons): CONSTRAINT name
// alone (a name for the next one), PRIMARY KEY, UNIQUE, CHECK or FOREIGN
// KEY.
func (p *ddlParser) tableConstraint(t *Table) ([]pendingFK, error) {
	switch {
	case p.accept("CONSTRAINT"):
		_, err := p.name()
		return nil, err
	case p.accept("PRIMARY"):
		if err := p.expect("KEY"); err != nil {
			return nil, err
		}
		return nil, p.tablePrimaryKey(t)
	case p.accept("UNIQUE"):
		if p.is("KEY") || p.is("INDEX") || (p.i < len(p.toks) && p.peek() != "(") {
			p.leave("")
			p.i++
			if p.peek() != "(" {
				p.i++ // the index's name
			}
		}
		cols, colls, err := p.keyColumns()
		if err != nil {
			return nil, err
		}
		idx, err := indexes(t, cols)
		if err != nil {
			return nil, p.fail(err.Error())
		}
		if keyByCollation(t, idx, colls) && !containsSet(t.Uniques, idx) {
			t.Uniques = append(t.Uniques, idx)
		}
		return nil, p.onConflict()
	case p.accept("CHECK"):
		if !p.is("(") {
			return nil, p.syntax()
		}
		text, err := p.checkText()
		if err != nil {
			return nil, err
		}
		p.checks = append(p.checks, text)
		return nil, p.onConflict()
	}
	p.i++ // FOREIGN
	if err := p.expect("KEY"); err != nil {
		return nil, err
	}
	if !p.is("(") && isName(p.at(0)) && p.at(1).Text == "(" {
		p.leave("") // MySQL: FOREIGN KEY name (…)
		p.i++
	}
	cols, err := p.idList()
	if err != nil {
		return nil, err
	}
	for _, c := range cols {
		if colIndex(t, c) < 0 {
			return nil, p.fail(fmt.Sprintf("unknown column %q in foreign key definition", c))
		}
	}
	fk, err := p.references(t, cols)
	if err != nil {
		return nil, err
	}
	return []pendingFK{fk}, nil
}

// tablePrimaryKey reads ( columns [AUTOINCREMENT] ) [ON CONFLICT …] of a
// table's PRIMARY KEY. A key that names a collation other than a column's
// own is no key by the columns' comparison (keyByCollation): t.PK is left
// empty. A DESC here leaves the rowid alias as it is (Table.PKDesc is the
// column constraint's only).
func (p *ddlParser) tablePrimaryKey(t *Table) error {
	if p.hasPK {
		return p.fail(fmt.Sprintf("table %q has more than one primary key", t.Name))
	}
	cols, colls, err := p.keyColumns()
	if err != nil {
		return err
	}
	idx, err := indexes(t, cols)
	if err != nil {
		return p.fail(err.Error())
	}
	if p.pkAutoinc && (len(idx) != 1 || !integerType(t.Columns[idx[0]]) || p.pkDesc) {
		return p.fail("AUTOINCREMENT is only allowed on an INTEGER PRIMARY KEY")
	}
	p.hasPK = true
	if keyByCollation(t, idx, colls) {
		t.PK = idx
	}
	return p.onConflict()
}

// keyColumns reads ( item [, item] [AUTOINCREMENT] ) of a PRIMARY KEY or
// UNIQUE: each item a column name (a string names one too) with an
// optional COLLATE and ASC or DESC; an expression is SQLite's
// "expressions prohibited in PRIMARY KEY and UNIQUE constraints", NULLS
// FIRST or LAST "unsupported use of NULLS …". A MySQL prefix length,
// name(10), is read as the column. colls are the collations the items
// name ("" where one names none). p.pkAutoinc and p.pkDesc report an
// AUTOINCREMENT and a DESC.
func (p *ddlParser) keyColumns() (cols, colls []string, err error) {
	p.pkAutoinc, p.pkDesc = false, false
	if err := p.expect("("); err != nil {
		return nil, nil, err
	}
	for {
		n, coll, err := p.keyColumn()
		if err != nil {
			return nil, nil, err
		}
		cols, colls = append(cols, n), append(colls, coll)
		if p.accept("AUTOINCREMENT") {
			p.pkAutoinc = true
			if err := p.expect(")"); err != nil {
				return nil, nil, err
			}
			return cols, colls, nil
		}
		if p.accept(")") {
			return cols, colls, nil
		}
		if err := p.expect(","); err != nil {
			return nil, nil, err
		}
	}
}

// keyColumn reads one item of keyColumns: its column and the collation
// it names.
func (p *ddlParser) keyColumn() (name, coll string, err error) {
	start := p.i
	if err := p.skipExprUntil(",", ")", "AUTOINCREMENT"); err != nil {
		return "", "", err
	}
	toks := p.toks[start:p.i]
	if n := len(toks); n >= 2 && asciiFold(toks[n-2].Text, "NULLS") && toks[n-2].Kind == sqllex.Word {
		return "", "", p.fail("unsupported use of NULLS " + strings.ToUpper(toks[n-1].Text))
	}
	toks, coll, desc := indexItem(toks)
	p.pkDesc = p.pkDesc || desc
	switch {
	case len(toks) == 1 && isName(toks[0]):
		return UnquoteIdent(toks[0].Text), coll, nil
	case len(toks) == 4 && isName(toks[0]) && toks[1].Text == "(" && toks[2].Kind == sqllex.Number && toks[3].Text == ")":
		p.leave("expressions prohibited in PRIMARY KEY and UNIQUE constraints") // MySQL prefix
		return UnquoteIdent(toks[0].Text), coll, nil
	case len(toks) == 0:
		p.i = start
		return "", "", p.syntax()
	}
	return "", "", p.fail("expressions prohibited in PRIMARY KEY and UNIQUE constraints")
}

// indexItem strips an item of a key or index column list down to its
// expression: a trailing ASC or DESC (desc), then any trailing COLLATE
// name and parentheses around the whole, as SQLite reads (a COLLATE x)
// and (a) as the column a. coll is the collation the item is under, ""
// for none named: the outermost COLLATE, the one SQLite's
// sqlite3CreateIndex takes (a COLLATE x COLLATE y is under y).
func indexItem(toks []tok) (_ []tok, coll string, desc bool) {
	if n := len(toks); n >= 2 && toks[n-1].Kind == sqllex.Word && (asciiFold(toks[n-1].Text, "ASC") || asciiFold(toks[n-1].Text, "DESC")) {
		desc = asciiFold(toks[n-1].Text, "DESC")
		toks = toks[:n-1]
	}
	for {
		n := len(toks)
		switch {
		case n >= 3 && toks[n-2].Kind == sqllex.Word && asciiFold(toks[n-2].Text, "COLLATE"):
			if coll == "" {
				coll = UnquoteIdent(toks[n-1].Text)
			}
			toks = toks[:n-2]
		case n >= 3 && toks[0].Text == "(" && toks[n-1].Text == ")" && depthOf(toks[1:n-1]) == 0 && closesLast(toks):
			toks = toks[1 : n-1]
		default:
			return toks, coll, desc
		}
	}
}

// closesLast reports whether the parenthesis opening toks closes at its
// last token, not before ((a) + (b) is no parenthesised whole).
func closesLast(toks []tok) bool {
	d := 0
	for i, t := range toks {
		if t.Kind != sqllex.Punct {
			continue
		}
		switch t.Text {
		case "(":
			d++
		case ")":
			d--
			if d == 0 && i < len(toks)-1 {
				return false
			}
		}
	}
	return true
}

// skipExprUntil skips the tokens of an expression up to one of the given
// words or punctuation at depth 0 (not consumed). An unbalanced
// parenthesis or the end of the statement is SQLite's syntax error.
func (p *ddlParser) skipExprUntil(stops ...string) error {
	depth := 0
	for ; p.i < len(p.toks); p.i++ {
		t := p.toks[p.i]
		if depth == 0 && t.Kind != sqllex.Quoted && t.Kind != sqllex.String {
			for _, s := range stops {
				if asciiFold(t.Text, s) {
					return nil
				}
			}
		}
		switch t.Text {
		case "(":
			depth++
		case ")":
			depth--
		}
	}
	return p.syntax()
}

// onConflict reads SQLite's optional ON CONFLICT ROLLBACK|ABORT|FAIL|
// IGNORE|REPLACE.
func (p *ddlParser) onConflict() error {
	if !p.accept("ON", "CONFLICT") {
		return nil
	}
	for _, w := range []string{"ROLLBACK", "ABORT", "FAIL", "IGNORE", "REPLACE"} {
		if p.accept(w) {
			return nil
		}
	}
	return p.syntax()
}

// idList reads ( name [, name] ) of a FOREIGN KEY or a REFERENCES (parse.y
// eidlist): a COLLATE, ASC or DESC after a name is SQLite's "syntax error
// after column name".
func (p *ddlParser) idList() ([]string, error) {
	if err := p.expect("("); err != nil {
		return nil, err
	}
	var out []string
	for {
		n, err := p.name()
		if err != nil {
			return nil, err
		}
		if p.is("COLLATE") || p.is("ASC") || p.is("DESC") {
			return nil, p.fail(fmt.Sprintf("syntax error after column name %q", n))
		}
		out = append(out, n)
		if p.accept(")") {
			return out, nil
		}
		if err := p.expect(","); err != nil {
			return nil, err
		}
	}
}

// references reads REFERENCES table [(cols)] [refargs] [[NOT] DEFERRABLE
// …] for the columns cols of t, and checks their number as SQLite's
// sqlite3CreateForeignKey does.
func (p *ddlParser) references(t *Table, cols []string) (pendingFK, error) {
	fk := pendingFK{cols: cols}
	if err := p.expect("REFERENCES"); err != nil {
		return fk, err
	}
	var err error
	if fk.refTable, err = p.name(); err != nil {
		return fk, err
	}
	ref := fk.refTable
	if p.is("(") {
		if fk.refCols, err = p.idList(); err != nil {
			return fk, err
		}
	}
	switch {
	case len(cols) == 1 && p.columnLevel && len(fk.refCols) > 1:
		return fk, p.fail(fmt.Sprintf("foreign key on %s should reference only one column of table %s", cols[0], ref))
	case fk.refCols != nil && len(fk.refCols) != len(cols):
		return fk, p.fail("number of columns in foreign key does not match the number of columns in the referenced table")
	}
	if fk.matchFull, err = p.refArgs(); err != nil {
		return fk, err
	}
	if !p.columnLevel {
		err = p.deferrable()
	}
	return fk, err
}

// refArgs reads ON DELETE|UPDATE|INSERT action and MATCH name, any
// number, and reports whether one is MATCH FULL.
func (p *ddlParser) refArgs() (full bool, err error) {
	for {
		switch {
		case p.accept("MATCH"):
			n, err := p.name()
			if err != nil {
				return full, err
			}
			full = full || asciiFold(n, "FULL")
		case p.is("ON", "DELETE"), p.is("ON", "UPDATE"), p.is("ON", "INSERT"):
			p.i += 2
			switch {
			case p.accept("SET", "NULL"), p.accept("SET", "DEFAULT"), p.accept("CASCADE"), p.accept("RESTRICT"), p.accept("NO", "ACTION"):
			default:
				return full, p.syntax()
			}
		case p.is("ON") && !p.is("ON", "CONFLICT"):
			p.i++
			return full, p.syntax()
		default:
			return full, nil
		}
	}
}

// deferrable reads an optional [NOT] DEFERRABLE [INITIALLY DEFERRED|
// IMMEDIATE].
func (p *ddlParser) deferrable() error {
	if !p.accept("NOT", "DEFERRABLE") && !p.accept("DEFERRABLE") {
		return nil
	}
	if p.accept("INITIALLY") && !p.accept("DEFERRED") && !p.accept("IMMEDIATE") {
		return p.syntax()
	}
	return nil
}

// tableOptions reads what follows the closing parenthesis: SQLite's
// WITHOUT ROWID and STRICT, separated by commas, or MySQL's and
// PostgreSQL's table options (ignored).
func (p *ddlParser) tableOptions() (map[string]bool, error) {
	opts := map[string]bool{}
	if p.i >= len(p.toks) {
		return opts, nil
	}
	p.accept(",") // table_option_set ::= table_option_set COMMA table_option, the set empty
	for {
		if p.mysqlTableOptionNext() {
			p.leave(p.tableOptionMsg())
			if w := strings.ToUpper(p.peek()); w == "INHERITS" || w == "PARTITION" {
				// PostgreSQL: a scan of the table reads its children's or
				// partitions' rows, which carry none of its keys.
				return nil, p.fail(w + ": a table whose rows include other tables' (inheritance, partitions) is not modelled")
			}
			p.i = len(p.toks)
			return opts, nil
		}
		without := p.accept("WITHOUT")
		n, err := p.name()
		if err != nil {
			return nil, err
		}
		if p.i < len(p.toks) && p.peek() != "," {
			return nil, p.syntax()
		}
		switch {
		case without && asciiFold(n, "rowid"):
			opts["WITHOUT ROWID"] = true
		case !without && asciiFold(n, "strict"):
			opts["STRICT"] = true
		default:
			return nil, p.fail("unknown table option: " + n)
		}
		if !p.accept(",") {
			return opts, nil
		}
	}
}

// tableOptionMsg is what SQLite says of a table option it does not know
// at the current token: its name, or the token after it that no option
// may hold.
func (p *ddlParser) tableOptionMsg() string {
	k := 0
	if p.is("WITHOUT") {
		k = 1
	}
	if !isName(p.at(k)) {
		p.i += k
		defer func() { p.i -= k }()
		return p.nearMsg()
	}
	if next := p.at(k + 1); next.Text != "" && next.Text != "," {
		p.i += k + 1
		defer func() { p.i -= k + 1 }()
		return p.nearMsg()
	}
	return "unknown table option: " + UnquoteIdent(p.at(k).Text)
}

// endTable checks the table as sqlite3EndTable does once its definition
// is read, and fixes what its options change: a generated column is left
// out (Table.Generated); WITHOUT ROWID needs a primary key; both it and
// STRICT keep NULL out of the key; STRICT needs each column's type to be one of strictTypes;
// the CHECKs are parsed.
func (p *ddlParser) endTable(t *Table, opts map[string]bool) error {
	if len(t.Columns) == len(p.generated) {
		return p.fail("must have at least one non-generated column")
	}
	if opts["WITHOUT ROWID"] && !p.hasPK {
		return p.fail("PRIMARY KEY missing on table " + t.Name)
	}
	if opts["STRICT"] {
		for _, c := range t.Columns {
			switch {
			case c.Type == "":
				return p.fail(fmt.Sprintf("missing datatype for %s.%s", t.Name, c.Name))
			case !strictTypes[c.Type]:
				return p.fail(fmt.Sprintf("unknown datatype for %s.%s: %q", t.Name, c.Name, p.typeText[c.Name]))
			}
		}
	}
	enforced := opts["WITHOUT ROWID"] || opts["STRICT"] // SQLite keeps NULL out of their keys
	for _, k := range t.PK {
		c := &t.Columns[k]
		c.KeyNotNull = (c.KeyNotNull || !c.NotNull) && !enforced
		c.NotNull = true
	}
	if p.skipChecks {
		return p.dropGenerated(t)
	}
	if err := p.checkColumns(t); err != nil {
		return err
	}
	if err := p.dropGenerated(t); err != nil {
		return err
	}
	return t.addChecks(p.checks)
}

// dropGenerated leaves the generated columns out of t, as PRAGMA
// table_info does, renumbering the keys and UNIQUE sets (a UNIQUE set over
// a generated column is left out with it).
func (p *ddlParser) dropGenerated(t *Table) error {
	if len(p.generated) == 0 {
		return nil
	}
	gen := map[int]bool{}
	for _, n := range p.generated {
		gen[colIndex(t, n)] = true
	}
	remap := make([]int, len(t.Columns))
	var cols []Column
	for i, c := range t.Columns {
		remap[i] = len(cols)
		if gen[i] {
			remap[i] = -1
			t.Generated = append(t.Generated, c.Name)
			continue
		}
		cols = append(cols, c)
	}
	move := func(ks []int) []int {
		out := make([]int, len(ks))
		for i, k := range ks {
			if out[i] = remap[k]; out[i] < 0 {
				return nil
			}
		}
		return out
	}
	t.PK = move(t.PK) // never over a generated column: columnPrimaryKey refuses it
	var uniques [][]int
	for _, u := range t.Uniques {
		if m := move(u); m != nil {
			uniques = append(uniques, m) // a UNIQUE over a generated column goes with it
		}
	}
	t.Uniques, t.Columns = uniques, cols
	return nil
}

// uniqueIndex reads [IF NOT EXISTS] name ON table ( items ) [WHERE expr]
// of CREATE UNIQUE INDEX. An index over an expression, or a partial one
// (WHERE: it binds only the rows its condition keeps), is no key of the
// table and is left out, as the SQLite reader leaves it out, the table
// marked Unmodelled; so is one under a collation other than a column's
// own (pendingFK.resolve).
func (p *ddlParser) uniqueIndex() ([]pendingFK, error) {
	var err error
	if p.ifNotExists, err = p.ifNotExistsClause(); err != nil {
		return nil, err
	}
	if p.index, err = p.name(); err != nil {
		return nil, err
	}
	if p.accept(".") {
		if p.index, err = p.name(); err != nil {
			return nil, err
		}
	}
	if p.is("USING") {
		p.leave("")
		p.i += 2
	}
	if err := p.expect("ON"); err != nil {
		return nil, err
	}
	t, err := p.name()
	if err != nil {
		return nil, err
	}
	if p.is(".") { // PostgreSQL: ON schema.table
		p.leave("")
		p.i++
		if t, err = p.name(); err != nil {
			return nil, err
		}
	}
	if p.is("USING") {
		p.leave("")
		p.i += 2
	}
	cols, colls, expr, err := p.indexColumns()
	if err != nil {
		return nil, err
	}
	partial := p.accept("WHERE")
	if partial {
		if p.i >= len(p.toks) {
			return nil, p.syntax()
		}
		p.i = len(p.toks)
	}
	if p.i < len(p.toks) {
		return nil, p.syntax()
	}
	switch {
	case expr:
		return []pendingFK{{table: t, unique: true, unmodelled: "unique index " + p.index + " on an expression"}}, nil
	case partial:
		return []pendingFK{{table: t, unique: true, unmodelled: "partial unique index " + p.index}}, nil
	}
	return []pendingFK{{table: t, cols: cols, colls: colls, unique: true, name: p.index}}, nil
}

// indexColumns reads ( item [, item] ) of CREATE INDEX: a column name
// with an optional COLLATE (colls, "" where none is named) and ASC or
// DESC, or an expression (expr true).
func (p *ddlParser) indexColumns() (cols, colls []string, expr bool, err error) {
	if err := p.expect("("); err != nil {
		return nil, nil, false, err
	}
	for {
		start := p.i
		if err := p.skipExprUntil(",", ")"); err != nil {
			return nil, nil, false, err
		}
		toks, coll, _ := indexItem(p.toks[start:p.i])
		switch {
		case len(toks) == 0:
			return nil, nil, false, p.syntax()
		case len(toks) == 1 && isName(toks[0]):
			cols, colls = append(cols, UnquoteIdent(toks[0].Text)), append(colls, coll)
		case len(toks) == 4 && isName(toks[0]) && toks[1].Text == "(" && toks[2].Kind == sqllex.Number:
			cols, colls = append(cols, UnquoteIdent(toks[0].Text)), append(colls, coll) // MySQL prefix length
		default:
			expr = true
		}
		if p.accept(")") {
			return cols, colls, expr, nil
		}
		p.i++ // ","
	}
}
