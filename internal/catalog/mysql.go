package catalog

import (
	"context"
	"strings"

	"github.com/sqljudge/sqljudge/internal/engine"
	"github.com/sqljudge/sqljudge/internal/result"
)

// The information_schema queries of readMySQL. Each runs on a connection
// to the database itself and filters on DATABASE(), so the database's
// name never enters the SQL text: the base tables by name, their columns
// with COLUMN_TYPE and IS_NULLABLE, their PRIMARY KEY and FOREIGN KEY
// columns in key order from KEY_COLUMN_USAGE (a foreign key into another
// database is left out; TABLE_CONSTRAINTS is not used, as MariaDB hides
// its rows from an account that may only SELECT), their unique indexes
// (UNIQUE constraints are unique indexes on MySQL; an index on an
// expression has no COLUMN_NAME and is left out), and their CHECK
// constraints: MariaDB's CHECK_CONSTRAINTS names the table, MySQL 8's does
// not (its TABLE_CONSTRAINTS does).
const (
	myColumnsQuery = `SELECT '', c.TABLE_NAME, c.COLUMN_NAME, c.COLUMN_TYPE, c.IS_NULLABLE, DATABASE()
FROM information_schema.COLUMNS c JOIN information_schema.TABLES t ON t.TABLE_SCHEMA = c.TABLE_SCHEMA AND t.TABLE_NAME = c.TABLE_NAME
WHERE c.TABLE_SCHEMA = DATABASE() AND t.TABLE_TYPE = 'BASE TABLE'
ORDER BY c.TABLE_NAME, c.ORDINAL_POSITION`
	// myCollationsQuery lists the columns whose collation is not utf8mb4's
	// default, the one equiv's sandbox creates its databases with
	// (COLLATION_NAME is NULL on a column that holds no text).
	myCollationsQuery = `SELECT c.TABLE_NAME, c.COLUMN_NAME, c.COLLATION_NAME
FROM information_schema.COLUMNS c JOIN information_schema.TABLES t ON t.TABLE_SCHEMA = c.TABLE_SCHEMA AND t.TABLE_NAME = c.TABLE_NAME
WHERE c.TABLE_SCHEMA = DATABASE() AND t.TABLE_TYPE = 'BASE TABLE' AND c.COLLATION_NAME IS NOT NULL
  AND c.COLLATION_NAME <> COALESCE((SELECT s.DEFAULT_COLLATE_NAME FROM information_schema.CHARACTER_SETS s WHERE s.CHARACTER_SET_NAME = 'utf8mb4'), '')`
	// myUnmodelledQuery lists tables with what the model leaves out of
	// them (Table.Unmodelled): a generated or an INVISIBLE column, a unique
	// index on a prefix or an expression, a trigger (which
	// information_schema shows only to an account with the TRIGGER
	// privilege on the table: a reader that may only SELECT sees none).
	myUnmodelledQuery = `SELECT TABLE_NAME, CONCAT('column ', COLUMN_NAME, ': ', LOWER(EXTRA)) FROM information_schema.COLUMNS
WHERE TABLE_SCHEMA = DATABASE() AND (EXTRA LIKE '%GENERATED%' OR EXTRA LIKE '%INVISIBLE%')
UNION ALL SELECT TABLE_NAME, CONCAT('unique index ', INDEX_NAME, ' on a prefix or an expression') FROM information_schema.STATISTICS
WHERE TABLE_SCHEMA = DATABASE() AND NON_UNIQUE = 0 AND (SUB_PART IS NOT NULL OR COLUMN_NAME IS NULL)
UNION ALL SELECT EVENT_OBJECT_TABLE, CONCAT('trigger ', TRIGGER_NAME) FROM information_schema.TRIGGERS WHERE EVENT_OBJECT_SCHEMA = DATABASE()`
	myKeysQuery = `SELECT TABLE_NAME, CONSTRAINT_NAME, REFERENCED_TABLE_NAME IS NOT NULL, COLUMN_NAME, REFERENCED_TABLE_NAME, REFERENCED_COLUMN_NAME
FROM information_schema.KEY_COLUMN_USAGE
WHERE TABLE_SCHEMA = DATABASE() AND (CONSTRAINT_NAME = 'PRIMARY' OR REFERENCED_TABLE_SCHEMA = DATABASE())
ORDER BY TABLE_NAME, CONSTRAINT_NAME, ORDINAL_POSITION`
	myUniqueQuery = `SELECT TABLE_NAME, INDEX_NAME, COLUMN_NAME
FROM information_schema.STATISTICS
WHERE TABLE_SCHEMA = DATABASE() AND NON_UNIQUE = 0 AND INDEX_NAME <> 'PRIMARY'
ORDER BY TABLE_NAME, INDEX_NAME, SEQ_IN_INDEX`
	myChecksMariaDB = `SELECT TABLE_NAME, CONSTRAINT_NAME, CHECK_CLAUSE
FROM information_schema.CHECK_CONSTRAINTS WHERE CONSTRAINT_SCHEMA = DATABASE()
ORDER BY TABLE_NAME, CONSTRAINT_NAME`
	myChecksMySQL = `SELECT tc.TABLE_NAME, tc.CONSTRAINT_NAME, cc.CHECK_CLAUSE
FROM information_schema.TABLE_CONSTRAINTS tc JOIN information_schema.CHECK_CONSTRAINTS cc
  ON cc.CONSTRAINT_SCHEMA = tc.CONSTRAINT_SCHEMA AND cc.CONSTRAINT_NAME = tc.CONSTRAINT_NAME
WHERE tc.TABLE_SCHEMA = DATABASE() AND tc.CONSTRAINT_TYPE = 'CHECK'
ORDER BY tc.TABLE_NAME, tc.CONSTRAINT_NAME`
)

// readMySQL reads a MariaDB or MySQL database from information_schema:
// base tables by name, column types as COLUMN_TYPE spells them, NOT NULL,
// primary keys, unique indexes, foreign keys within the database, CHECK
// constraints where the server keeps them (Options.Checks; MariaDB 10.2+,
// MySQL 8.0.16+) and the samples (serverSamples). Every statement is a
// SELECT.
func readMySQL(ctx context.Context, q func(string) (*result.Set, error), o Options) (*Database, error) {
	db, err := readColumns(q, myColumnsQuery, isNO, 0, 5)
	if err != nil {
		return nil, err
	}
	if err := readMySQLConstraints(q, db); err != nil {
		return nil, err
	}
	if err := readMySQLCollations(q, db); err != nil {
		return nil, err
	}
	un, err := q(myUnmodelledQuery)
	if err != nil {
		return nil, err
	}
	for _, r := range un.Rows {
		if t := db.Table(r[0].S); t != nil {
			t.unmodelled(r[1].S, !strings.HasPrefix(r[1].S, "column "))
		}
	}
	if o.Checks {
		if err := readMySQLChecks(q, db); err != nil {
			return nil, err
		}
	}
	return db, serverSamples(engine.MySQL, q, db, o.Samples)
}

// readMySQLCollations sets the Collation of every column of text whose
// collation is not utf8mb4's default (myCollationsQuery).
func readMySQLCollations(q func(string) (*result.Set, error), db *Database) error {
	rows, err := q(myCollationsQuery)
	if err != nil {
		return err
	}
	for _, r := range rows.Rows {
		if t := db.Table(r[0].S); t != nil {
			if k := t.Col(r[1].S); k >= 0 {
				t.Columns[k].Collation = r[2].S
			}
		}
	}
	return nil
}

// isNO reads information_schema's IS_NULLABLE: "NO" is NOT NULL.
func isNO(v result.Value) bool { return v.S == "NO" }

// readMySQLConstraints adds the keys, foreign keys and unique indexes of
// information_schema to db.
func readMySQLConstraints(q func(string) (*result.Set, error), db *Database) error {
	keys, err := q(myKeysQuery)
	if err != nil {
		return err
	}
	idx, err := q(myUniqueQuery)
	if err != nil {
		return err
	}
	g := newConstraintGroups()
	for _, r := range keys.Rows {
		typ := "p"
		if r[2].I != 0 {
			typ = "f"
		}
		c := g.group("", r[0].S, r[1].S, typ)
		c.cols = append(c.cols, r[3].S)
		c.refTable = r[4].S
		c.refCols = append(c.refCols, r[5].S)
	}
	for _, r := range idx.Rows {
		c := g.group("", r[0].S, "\x00index "+r[1].S, "u")
		c.cols = append(c.cols, r[2].S)
	}
	return g.addTo(db, false)
}

// readMySQLChecks adds the CHECK constraints to their tables, parsed
// (ParseCheck; a clause it refuses is the error). A server without
// CHECK_CONSTRAINTS (MariaDB before 10.2, MySQL before 8.0.16) enforces
// no CHECK, so there is none to read.
func readMySQLChecks(q func(string) (*result.Set, error), db *Database) error {
	set, err := q(myChecksMariaDB)
	if err != nil {
		if set, err = q(myChecksMySQL); err != nil {
			return nil
		}
	}
	for _, r := range set.Rows {
		if t := db.Table(r[0].S); t != nil && r[2].S != "" {
			if err := t.addChecks([]string{r[2].S}); err != nil {
				return err
			}
		}
	}
	return nil
}
