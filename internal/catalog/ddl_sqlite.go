package catalog

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/sqljudge/sqljudge/internal/sqllex"
)

// The DDL parser reads SQLite's CREATE TABLE grammar as SQLite's own
// parser does (src/parse.y: create_table, columnlist, carglist, conslist,
// table_option_set; https://sqlite.org/lang_createtable.html), and refuses
// what SQLite refuses with SQLite's own message ("near "b": syntax error",
// "duplicate column name: a", ...). Where SQLite would stop, the parser may
// go on as MySQL or PostgreSQL DDL (an extension: ENGINE=…, AUTO_INCREMENT
// after NOT NULL, x::text, ENUM(…), KEY k (…), …); it then remembers what
// SQLite would have said, and a statement that fails later is refused with
// that message, SQLite's, first.

// sqliteReserved are the SQLite keywords that can be neither a name nor a
// word of a type name (the keywords that are not in parse.y's %fallback ID
// list, nor JOIN_KW, INDEXED, or the window words the tokenizer turns into
// identifiers): measured on the SQLite of github.com/mattn/go-sqlite3
// (TestSQLiteKeywords runs every keyword of
// https://sqlite.org/lang_keywords.html as a column name and as a type).
var sqliteReserved = wordSet(`ADD ALL ALTER AND AS AUTOINCREMENT BETWEEN CASE CHECK COLLATE
	COMMIT CONSTRAINT CREATE DEFAULT DEFERRABLE DELETE DISTINCT DROP ELSE ESCAPE EXCEPT EXISTS
	FOREIGN FROM GROUP HAVING IN INDEX INSERT INTERSECT INTO IS ISNULL JOIN LIMIT NOT NOTHING
	NOTNULL NULL ON OR ORDER PRIMARY REFERENCES RETURNING SELECT SET TABLE THEN TO TRANSACTION
	UNION UNIQUE UPDATE USING VALUES WHEN WHERE`)

// sqliteNameOnly are the keywords that may name a table or a column but
// are no word of a type name (parse.y: nm ::= idj, idj ::= ID|INDEXED|
// JOIN_KW; a type's words are ids ::= ID|STRING).
var sqliteNameOnly = wordSet("CROSS FULL INNER LEFT NATURAL OUTER RIGHT INDEXED")

func wordSet(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

// isName reports whether t may be a name to SQLite (nm): a word that is
// not reserved, a quoted identifier or a string.
func isName(t tok) bool {
	switch t.Kind {
	case sqllex.Quoted, sqllex.String:
		return true
	case sqllex.Word:
		return !sqliteReserved[strings.ToUpper(t.Text)] && !strings.HasPrefix(t.Text, "$")
	}
	return false
}

// isTypeWord reports whether t may be a word of a type name to SQLite
// (ids): a name that is neither a join keyword nor INDEXED.
func isTypeWord(t tok) bool {
	return isName(t) && !(t.Kind == sqllex.Word && sqliteNameOnly[strings.ToUpper(t.Text)])
}

// nearMsg is SQLite's message for a syntax error at the current token:
// near "x": syntax error, or at the end of the text "incomplete input"
// (near ";" when a semicolon ended the statement).
func (p *ddlParser) nearMsg() string {
	switch {
	case p.i < len(p.toks):
		t := p.toks[p.i]
		if t.Kind == sqllex.Punct && t.Text == ":" {
			return `unrecognized token: ":"`
		}
		if t.Kind == sqllex.Number && !sqliteNumber.MatchString(t.Text) {
			return fmt.Sprintf("unrecognized token: %q", t.Text)
		}
		return fmt.Sprintf("near %q: syntax error", t.Text)
	case p.terminated:
		return `near ";": syntax error`
	}
	return "incomplete input"
}

// sqliteNumber is a numeric literal to SQLite's tokenizer: decimal with
// an optional fraction and exponent, or hexadecimal.
var sqliteNumber = regexp.MustCompile(`^(?i:(\d+(\.\d*)?|\.\d+)(e[+-]?\d+)?|0x[0-9a-f]+)$`)

// syntax returns SQLite's syntax error at the current token.
func (p *ddlParser) syntax() error { return p.fail(p.nearMsg()) }

// fail returns the statement's error: msg, or, when the statement left
// SQLite's grammar earlier, SQLite's message there with msg as what the
// MySQL or PostgreSQL reading then expected.
func (p *ddlParser) fail(msg string) error {
	if p.sqliteErr == "" || p.sqliteErr == msg {
		return errors.New(msg)
	}
	return fmt.Errorf("%s (read as MySQL or PostgreSQL DDL: %s)", p.sqliteErr, msg)
}

// leave records that the statement leaves SQLite's grammar at the current
// token, where SQLite would say msg (nearMsg when msg is "").
func (p *ddlParser) leave(msg string) {
	if p.sqliteErr != "" {
		return
	}
	if msg == "" {
		msg = p.nearMsg()
	}
	p.sqliteErr = msg
}

// unsupported is the error of a statement SQLite accepts and equiv does
// not read: what it is and why.
func (p *ddlParser) unsupported(format string, args ...any) error {
	return p.fail(fmt.Sprintf(format, args...) + " (SQLite accepts it; equiv does not read it)")
}

// sqliteCollations are the collating sequences SQLite has built in.
var sqliteCollations = wordSet("BINARY NOCASE RTRIM")

// strictTypes are the types a STRICT table's columns may have
// (https://sqlite.org/stricttables.html).
var strictTypes = wordSet("INT INTEGER REAL TEXT BLOB ANY")

// asciiFold reports whether a and b are equal up to the case of ASCII
// letters, as SQLite compares names and keywords (sqllex.EqualFoldASCII).
func asciiFold(a, b string) bool { return sqllex.EqualFoldASCII(a, b) }

// colIndex returns the index of t's column named n as SQLite finds it
// (asciiFold), or -1.
func colIndex(t *Table, n string) int {
	for i, c := range t.Columns {
		if asciiFold(c.Name, n) {
			return i
		}
	}
	return -1
}

// tableNamed returns the table of db named n as SQLite finds it
// (asciiFold), or nil.
func tableNamed(db *Database, n string) *Table {
	for _, t := range db.Tables {
		if asciiFold(t.Name, n) {
			return t
		}
	}
	return nil
}
