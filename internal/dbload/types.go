package dbload

import (
	"fmt"
	"strconv"
	"strings"
)

// Column types of the translating targets. The SQLite names follow
// sqlglot's PostgreSQL-to-SQLite mapping that defog-data uses (integers
// INTEGER, floats and numerics REAL, strings TEXT, booleans INTEGER) and
// keep DATE, TIME and TIMESTAMP as declared names (they hold text).
//
//	PostgreSQL                    SQLite     MySQL/MariaDB         DuckDB
//	smallint, integer, bigint     INTEGER    SMALLINT/INT/BIGINT   SMALLINT/INTEGER/BIGINT
//	numeric(p,s)                  REAL       DECIMAL(p,s)          DECIMAL(p,s) (DOUBLE past 38 digits)
//	numeric                       REAL       DECIMAL(65,30)        DOUBLE
//	real, double precision        REAL       FLOAT, DOUBLE         REAL, DOUBLE
//	text, varchar(n), char(n)     TEXT       LONGTEXT, VARCHAR(n), CHAR(n)  VARCHAR
//	boolean                       INTEGER    BOOLEAN (TINYINT(1))  BOOLEAN
//	date                          DATE       DATE                  DATE
//	time                          TIME       TIME(6)               TIME
//	timestamp                     TIMESTAMP  DATETIME(6)           TIMESTAMP
//	timestamptz                   TIMESTAMP  DATETIME(6), in UTC   TIMESTAMPTZ
//	interval                      TEXT       VARCHAR(100)          INTERVAL
//	bytea                         BLOB       LONGBLOB              BLOB
//	uuid, json, jsonb, xml        TEXT       LONGTEXT              VARCHAR
func targetType(target string, c *Column) string {
	fam, _ := family(c.Type)
	switch target {
	case "sqlite":
		switch fam {
		case vInt, vBool:
			return "INTEGER"
		case vNumeric, vFloat:
			return "REAL"
		case vDate:
			return "DATE"
		case vTime:
			return "TIME"
		case vTimestamp, vTimestampTZ:
			return "TIMESTAMP"
		case vBytes:
			return "BLOB"
		}
		return "TEXT"
	case "mysql":
		switch fam {
		case vInt:
			switch c.Type {
			case "smallint":
				return "SMALLINT"
			case "integer":
				return "INT"
			}
			return "BIGINT"
		case vNumeric:
			if len(c.Mods) >= 1 && c.Mods[0] <= 65 {
				return fmt.Sprintf("DECIMAL(%d,%d)", c.Mods[0], modOr(c.Mods, 1, 0))
			}
			return "DECIMAL(65,30)"
		case vFloat:
			if c.Type == "real" {
				return "FLOAT"
			}
			return "DOUBLE"
		case vBool:
			return "BOOLEAN"
		case vDate:
			return "DATE"
		case vTime:
			return "TIME(6)"
		case vTimestamp, vTimestampTZ:
			return "DATETIME(6)"
		case vInterval:
			return "VARCHAR(100)"
		case vBytes:
			return "LONGBLOB"
		}
		switch {
		case c.Type == "character varying" && len(c.Mods) == 1:
			return fmt.Sprintf("VARCHAR(%d)", c.Mods[0])
		case c.Type == "character":
			return fmt.Sprintf("CHAR(%d)", modOr(c.Mods, 0, 1))
		}
		return "LONGTEXT"
	case "duckdb":
		switch fam {
		case vInt:
			return strings.ToUpper(c.Type)
		case vNumeric:
			if len(c.Mods) >= 1 && c.Mods[0] <= 38 {
				return fmt.Sprintf("DECIMAL(%d,%d)", c.Mods[0], modOr(c.Mods, 1, 0))
			}
			return "DOUBLE"
		case vFloat:
			if c.Type == "real" {
				return "REAL"
			}
			return "DOUBLE"
		case vBool:
			return "BOOLEAN"
		case vDate:
			return "DATE"
		case vTime:
			return "TIME"
		case vTimestamp:
			return "TIMESTAMP"
		case vTimestampTZ:
			return "TIMESTAMPTZ"
		case vInterval:
			return "INTERVAL"
		case vBytes:
			return "BLOB"
		}
		return "VARCHAR"
	}
	return ""
}

func modOr(mods []int, i, def int) int {
	if i < len(mods) {
		return mods[i]
	}
	return def
}

// storedFor returns the Go value a target stores for v (a value already
// assigned to its column), for the target's driver to bind:
//
//	SQLite: int64, float64, string, []byte or nil; booleans 1/0; dates,
//	  times and timestamps as PostgreSQL's text ("2024-02-29",
//	  "2024-02-29 13:05:09.5"), a timestamptz with "+00:00" (the form
//	  SQLite's date functions read).
//	MySQL: the same, but numerics as exact decimal text and a timestamptz
//	  as its UTC wall clock.
//	DuckDB: like MySQL, with a timestamptz as "...+00".
func storedFor(target string, v value) any {
	switch v.t {
	case vNull:
		return nil
	case vInt:
		return v.i
	case vNumeric:
		if target == "sqlite" {
			f, _ := v.num.Float64()
			return f
		}
		return numericText(v)
	case vFloat:
		if v.f32 {
			// the float a client reads from a real: its shortest float4 text
			f, _ := strconv.ParseFloat(strconv.FormatFloat(v.f, 'g', -1, 32), 64)
			return f
		}
		return v.f
	case vBool:
		if target == "duckdb" {
			return v.b
		}
		if v.b {
			return int64(1)
		}
		return int64(0)
	case vTimestampTZ:
		switch target {
		case "sqlite":
			return v.tm.Format("2006-01-02 ") + clockText(v.tm) + "+00:00"
		case "mysql":
			return v.tm.Format("2006-01-02 ") + clockText(v.tm)
		}
		return textOut(v)
	case vBytes:
		return []byte(v.s)
	}
	return textOut(v)
}
