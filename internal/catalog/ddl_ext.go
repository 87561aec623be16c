package catalog

import (
	"strings"

	"github.com/sqljudge/sqljudge/internal/sqllex"
)

// The MySQL and PostgreSQL spellings ParseDDL reads where SQLite's
// grammar stops. Each first records SQLite's message (leave).

// mysqlIndexNext reports whether a MySQL index definition starts here:
// KEY, INDEX, FULLTEXT or SPATIAL [KEY|INDEX] [name] ( … ), which SQLite
// would read as a column (KEY is a name to it) or refuse.
func (p *ddlParser) mysqlIndexNext() bool {
	k := 0
	switch {
	case p.is("FULLTEXT"), p.is("SPATIAL"):
		k = 1
		if p.is(p.peek(), "KEY") || p.is(p.peek(), "INDEX") {
			k = 2
		}
	case p.is("KEY"), p.is("INDEX"):
		k = 1
	default:
		return false
	}
	if p.at(k).Text == "(" {
		return p.at(k+1).Kind != sqllex.Number && p.at(k+1).Text != "+" && p.at(k+1).Text != "-"
	}
	return isName(p.at(k)) && p.at(k+1).Text == "("
}

// mysqlIndex skips a MySQL index definition (it constrains nothing).
func (p *ddlParser) mysqlIndex() error {
	for p.i < len(p.toks) && p.peek() != "(" {
		p.i++
	}
	p.skipParens()
	for p.i < len(p.toks) && p.peek() != "," && p.peek() != ")" {
		p.i++ // USING BTREE, COMMENT '…'
	}
	return nil
}

// mysqlTableOptionNext reports whether the table options are MySQL's
// (ENGINE=InnoDB, DEFAULT CHARSET=utf8, …) or PostgreSQL's (WITH (…),
// INHERITS (…), TABLESPACE x, PARTITION BY …, ON COMMIT …).
func (p *ddlParser) mysqlTableOptionNext() bool {
	switch strings.ToUpper(p.peek()) {
	case "ENGINE", "AUTO_INCREMENT", "DEFAULT", "CHARSET", "CHARACTER", "COLLATE", "COMMENT",
		"ROW_FORMAT", "KEY_BLOCK_SIZE", "PACK_KEYS", "CHECKSUM", "DELAY_KEY_WRITE",
		"AVG_ROW_LENGTH", "MAX_ROWS", "MIN_ROWS", "STATS_PERSISTENT", "STATS_AUTO_RECALC",
		"STATS_SAMPLE_PAGES", "TABLESPACE", "INSERT_METHOD", "PARTITION", "INHERITS", "ON", "TYPE":
		return true
	case "WITH":
		return p.at(1).Text == "("
	case "WITHOUT":
		return asciiFold(p.at(1).Text, "OIDS")
	}
	return false
}

// mysqlColumnOption reads a MySQL column attribute SQLite does not know:
// AUTO_INCREMENT, UNSIGNED, SIGNED, ZEROFILL, COMMENT '…', CHARACTER SET
// x, CHARSET x, ON UPDATE …; anything else is SQLite's syntax error.
func (p *ddlParser) mysqlColumnOption(c *Column) error {
	switch {
	case p.is("UNSIGNED"), p.is("SIGNED"), p.is("ZEROFILL"):
		// part of the type (INT(5) ZEROFILL is unsigned), as in INT
		// UNSIGNED, which the type's words already hold
		p.leave("")
		c.Type += " " + strings.ToUpper(p.peek())
		c.TypeName = c.Type
		p.i++
	case p.is("AUTO_INCREMENT"):
		p.leave("")
		p.i++
	case p.is("CHARSET"):
		p.leave("")
		c.Charset = p.at(1).Text
		p.i += 2
	case p.is("COMMENT"):
		p.leave("")
		p.i += 2
	case p.is("CHARACTER", "SET"):
		p.leave("")
		c.Charset = p.at(2).Text
		p.i += 3
	case p.is("ON", "UPDATE"):
		p.leave("")
		p.i += 2
		if p.i < len(p.toks) {
			p.i++
		}
		if p.is("(") {
			p.skipParens()
		}
	default:
		return p.syntax()
	}
	if p.i > len(p.toks) {
		p.i = len(p.toks)
		return p.syntax()
	}
	return nil
}

// identity reads IDENTITY [( sequence options )] of PostgreSQL's
// GENERATED … AS IDENTITY (the column is then NOT NULL), p.i past AS.
func (p *ddlParser) identity(c *Column) error {
	if err := p.expect("IDENTITY"); err != nil {
		return err
	}
	if p.is("(") {
		p.skipParens()
	}
	c.NotNull, c.KeyNotNull = true, false
	return nil
}
