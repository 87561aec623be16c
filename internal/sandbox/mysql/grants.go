package mysql

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"regexp"
	"strings"

	mysqldrv "github.com/go-sql-driver/mysql"

	"github.com/sqljudge/sqljudge/internal/engine"
	"github.com/sqljudge/sqljudge/internal/sandbox"
)

// An account given to `sqljudge equiv --db mysql://…` runs the pairs'
// queries. Anything it may do beyond the documented grant, a query may
// do: read server files (FILE), see or kill other sessions (PROCESS,
// CONNECTION ADMIN), change other databases (INSERT on *.*), run a
// DEFINER routine (EXECUTE), act as another user (PROXY). So the account
// is held to the grant, not only kept from administrative privileges.

// scratchPrivileges are what the account may hold on the scratch
// databases' names.
var scratchPrivileges = map[string]bool{"CREATE": true, "DROP": true, "SELECT": true, "INSERT": true, "DELETE": true, "REFERENCES": true}

// readPrivileges are what the account may hold on other databases and
// tables: reading the db_id databases of pairs.
var readPrivileges = map[string]bool{"SELECT": true, "SHOW VIEW": true}

// grantRe reads a SHOW GRANTS line: GRANT <privileges> ON <object> TO
// <grantee> [IDENTIFIED …] [WITH …].
var (
	grantRe     = regexp.MustCompile(`(?is)^GRANT\s+(.+?)\s+ON\s+(.+?)\s+TO\s+(.+)$`)
	roleGrantRe = regexp.MustCompile("(?is)^GRANT\\s+((?:`(?:[^`]|``)+`|'[^']*'|[A-Za-z0-9_$]+)(?:@(?:`(?:[^`]|``)*`|'[^']*'|[A-Za-z0-9_.%$-]+))?)\\s+TO\\s+")
	columnList  = regexp.MustCompile(`\s*\([^()]*\)`)
)

// scratchObjects are the spellings of the scratch databases' pattern as
// an object of a GRANT.
var scratchObjects = map[string]bool{
	"`sqljudge\\_equiv\\_%`.*": true,
	"`sqljudge_equiv_%`.*":     true,
	"`sqljudge\\_equiv\\_%`":   true,
}

// systemDatabases are the server's own databases: SELECT on them reads
// password hashes (mysql.user, mysql.global_priv), other sessions'
// statements and their texts (performance_schema, sys's views of it).
var systemDatabases = []string{"mysql", "performance_schema", "sys"}

// excessGrant judges one SHOW GRANTS line: the privilege it gives beyond
// the documented grant ("" when none), or the role it grants (to be
// judged by its own grants). A grant to PUBLIC (every account of the
// server holds it) may only give what the account may hold elsewhere,
// SELECT and SHOW VIEW, and nothing on the scratch databases; no grant
// may reach the server's own databases (systemDatabases), by name or by
// a pattern that matches one.
func excessGrant(line string) (excess, role string) {
	g := strings.TrimSpace(line)
	up := strings.ToUpper(g)
	switch {
	case strings.HasPrefix(up, "SET DEFAULT ROLE"):
		return "", ""
	case !strings.HasPrefix(up, "GRANT "):
		return "an unknown grant (" + g + ")", ""
	case strings.Contains(up, "WITH GRANT OPTION") || strings.Contains(up, " WITH ADMIN OPTION"):
		return "GRANT OPTION", ""
	}
	m := grantRe.FindStringSubmatch(g)
	if m == nil {
		if r := roleGrantRe.FindStringSubmatch(g); r != nil {
			return "", r[1]
		}
		return "an unknown grant (" + g + ")", ""
	}
	privs, object := strings.ToUpper(columnList.ReplaceAllString(m[1], "")), strings.TrimSpace(m[2])
	public := grantee(g) == "PUBLIC"
	to := ""
	if public {
		to = " TO PUBLIC"
	}
	if strings.HasPrefix(privs, "PROXY") {
		return "PROXY", ""
	}
	if strings.HasPrefix(strings.ToUpper(object), "PROCEDURE ") || strings.HasPrefix(strings.ToUpper(object), "FUNCTION ") || strings.HasPrefix(strings.ToUpper(object), "PACKAGE ") {
		return privs + " ON " + object + to, ""
	}
	allowed := readPrivileges
	switch {
	case object == "*.*":
		allowed = map[string]bool{"USAGE": true}
	case scratchObjects[object] && !public:
		allowed = scratchPrivileges
	case scratchObjects[object]:
		allowed = map[string]bool{"USAGE": true}
	}
	for _, p := range strings.Split(privs, ",") {
		if p = strings.TrimSpace(p); p != "" && !allowed[p] && p != "USAGE" {
			return p + " ON " + object + to, ""
		}
	}
	if onlyUsage(privs) {
		return "", ""
	}
	if db, pattern, ok := objectDatabase(object); !ok {
		return "an unknown grant (" + g + ")", ""
	} else if reachesSystem(db, pattern) || public && mayNameScratch(db, pattern) {
		return privs + " ON " + object + to, ""
	}
	return "", ""
}

// onlyUsage reports whether a GRANT's privilege list is USAGE alone (no
// privilege at all).
func onlyUsage(privs string) bool {
	for _, p := range strings.Split(privs, ",") {
		if p = strings.TrimSpace(p); p != "" && p != "USAGE" {
			return false
		}
	}
	return true
}

// granteeRe finds the grantee of a SHOW GRANTS line (what follows its
// last TO).
var granteeRe = regexp.MustCompile("(?is)\\sTO\\s+(PUBLIC|`(?:[^`]|``)+`(?:@`(?:[^`]|``)*`)?|'[^']*'(?:@'[^']*')?)(?:\\s|$)")

// grantee returns the grantee of a SHOW GRANTS line as the line spells it
// (`u`@`h`, `role`, PUBLIC), or "".
func grantee(line string) string {
	all := granteeRe.FindAllStringSubmatch(line, -1)
	if len(all) == 0 {
		return ""
	}
	g := all[len(all)-1][1]
	if strings.EqualFold(g, "PUBLIC") {
		return "PUBLIC"
	}
	return g
}

// objectDatabase reads the database of a GRANT's object (*.*, `db`.*,
// `db`.`t`, db.*): its name, unquoted, and whether it is a pattern (a
// database-level grant, where _ and % are wildcards); "*" for *.*. ok is
// false for an object it cannot read.
func objectDatabase(object string) (db string, pattern, ok bool) {
	if strings.HasPrefix(object, "*") {
		return "*", true, true
	}
	rest := object
	if strings.HasPrefix(rest, "`") {
		var b strings.Builder
		i := 1
		for ; i < len(rest); i++ {
			if rest[i] == '`' {
				if i+1 < len(rest) && rest[i+1] == '`' {
					b.WriteByte('`')
					i++
					continue
				}
				break
			}
			b.WriteByte(rest[i])
		}
		if i >= len(rest) {
			return "", false, false
		}
		db, rest = b.String(), rest[i+1:]
	} else {
		j := strings.IndexByte(rest, '.')
		if j < 0 {
			return "", false, false
		}
		db, rest = rest[:j], rest[j:]
	}
	switch {
	case rest == "" || rest == ".*":
		return db, true, true
	case strings.HasPrefix(rest, "."):
		return db, false, true
	}
	return "", false, false
}

// reachesSystem reports whether a grant on database db (a LIKE pattern
// when pattern) reaches one of systemDatabases; "*" reaches them all.
func reachesSystem(db string, pattern bool) bool {
	for _, s := range systemDatabases {
		if db == "*" || !pattern && strings.EqualFold(db, s) || pattern && likeMatch(db, s) {
			return true
		}
	}
	return false
}

// scratchNamePrefix starts the name of every scratch database.
const scratchNamePrefix = "sqljudge_equiv_"

// mayNameScratch reports whether a grant on database db (a LIKE pattern
// when pattern) may reach a scratch database: a grant to PUBLIC that does
// would let every account of the server read or change them.
func mayNameScratch(db string, pattern bool) bool {
	if !pattern {
		return strings.HasPrefix(strings.ToLower(db), scratchNamePrefix)
	}
	p, i := []rune(strings.ToLower(db)), 0
	for _, c := range scratchNamePrefix {
		switch {
		case i >= len(p):
			return false
		case p[i] == '%':
			return true
		case p[i] == '\\' && i+1 < len(p):
			i++
			if p[i] != c {
				return false
			}
		case p[i] != '_' && p[i] != c:
			return false
		}
		i++
	}
	return true
}

// likeMatch reports whether name matches the database pattern of a
// grant, case-insensitively: % any run, _ any one character, \ escaping
// the next.
func likeMatch(pattern, name string) bool {
	p, n := []rune(strings.ToLower(pattern)), []rune(strings.ToLower(name))
	var match func(i, j int) bool
	match = func(i, j int) bool {
		for i < len(p) {
			switch {
			case p[i] == '%':
				for k := j; k <= len(n); k++ {
					if match(i+1, k) {
						return true
					}
				}
				return false
			case j >= len(n):
				return false
			case p[i] == '_':
			case p[i] == '\\' && i+1 < len(p):
				i++
				if p[i] != n[j] {
					return false
				}
			case p[i] != n[j]:
				return false
			}
			i, j = i+1, j+1
		}
		return j == len(n)
	}
	return match(0, 0)
}

// vetAccount refuses (engine.ErrPrivileged) an account whose grants, those
// granted to PUBLIC, or those of a role it holds (to a depth of 4), give
// more than the documented grant (excessGrant). Privileges it cannot read
// (a role granted but not enabled, whose grants SHOW GRANTS FOR refuses to
// show) refuse it too, as a setup error (sandbox.ErrSetup).
func vetAccount(ctx context.Context, db *sql.DB) error {
	var user string
	if err := db.QueryRowContext(ctx, "SELECT CURRENT_USER()").Scan(&user); err != nil {
		return fmt.Errorf("%w: cannot read the account: %v", sandbox.ErrSetup, err)
	}
	excess, err := vetGrants(ctx, db)
	if err != nil {
		return fmt.Errorf("%w: cannot read the privileges of account %s, so they cannot be checked: %v; %s (a role the account holds must be its default role, SET DEFAULT ROLE, for SHOW GRANTS to show it)", sandbox.ErrSetup, user, err, mysqlGrantAdvice)
	}
	if excess != "" {
		return fmt.Errorf("%w: account %s holds %s, beyond what equiv needs, so a pair's query could use it (read server files or password hashes, see other sessions, change other databases); %s, or pass --allow-superuser", engine.ErrPrivileged, user, excess, mysqlGrantAdvice)
	}
	return nil
}

// MySQL error numbers of SHOW GRANTS FOR PUBLIC on a server without
// grants to PUBLIC (or without PUBLIC: MariaDB before 10.11, MySQL).
const (
	erParseError      = 1064 // ER_PARSE_ERROR
	erNonexistingGrnt = 1141 // ER_NONEXISTING_GRANT
)

// vetGrants returns the first excess privilege of the account's grants
// (SHOW GRANTS, which lists those of its enabled roles and, on MariaDB,
// PUBLIC's) and of PUBLIC's (SHOW GRANTS FOR PUBLIC).
func vetGrants(ctx context.Context, db *sql.DB) (string, error) {
	lines, err := showGrants(ctx, db, "SHOW GRANTS")
	if err != nil {
		return "", err
	}
	public, err := showGrants(ctx, db, "SHOW GRANTS FOR PUBLIC")
	var me *mysqldrv.MySQLError
	if err != nil && !(errors.As(err, &me) && (me.Number == erParseError || me.Number == erNonexistingGrnt)) {
		return "", fmt.Errorf("SHOW GRANTS FOR PUBLIC: %w", err)
	}
	return judgeGrants(ctx, db, append(lines, public...), 0)
}

// showGrants returns the lines stmt (a SHOW GRANTS) lists.
func showGrants(ctx context.Context, db *sql.DB, stmt string) ([]string, error) {
	rows, err := db.QueryContext(ctx, stmt)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var lines []string
	for rows.Next() {
		var g string
		if err := rows.Scan(&g); err != nil {
			return nil, err
		}
		lines = append(lines, g)
	}
	return lines, rows.Err()
}

// judgeGrants returns the first excess privilege of lines, and of the
// roles they grant whose own grants they do not list (read with SHOW
// GRANTS FOR, to a depth of 4).
func judgeGrants(ctx context.Context, db *sql.DB, lines []string, depth int) (string, error) {
	listed := map[string]bool{}
	for _, g := range lines {
		listed[grantee(g)] = true
	}
	for _, g := range lines {
		excess, role := excessGrant(g)
		if excess != "" {
			return excess, nil
		}
		if role == "" || listed[role] {
			continue
		}
		if depth >= 4 {
			return "roles nested deeper than 4 (" + role + ")", nil
		}
		more, err := showGrants(ctx, db, "SHOW GRANTS FOR "+role)
		if err != nil {
			return "", fmt.Errorf("role %s: %w", role, err)
		}
		excess, err = judgeGrants(ctx, db, more, depth+1)
		if err != nil || excess != "" {
			if err == nil {
				excess += " (through role " + role + ")"
			}
			return excess, err
		}
	}
	return "", nil
}
