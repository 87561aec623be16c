package mysql

import (
	"context"
	"database/sql"
	"fmt"
	"regexp"
	"strings"

	"github.com/sqljudge/sqljudge/internal/engine"
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

// excessGrant judges one SHOW GRANTS line: the privilege it gives beyond
// the documented grant ("" when none), or the role it grants (to be
// judged by its own grants).
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
	if strings.HasPrefix(privs, "PROXY") {
		return "PROXY", ""
	}
	if strings.HasPrefix(strings.ToUpper(object), "PROCEDURE ") || strings.HasPrefix(strings.ToUpper(object), "FUNCTION ") || strings.HasPrefix(strings.ToUpper(object), "PACKAGE ") {
		return privs + " ON " + object, ""
	}
	allowed := readPrivileges
	switch {
	case object == "*.*":
		allowed = map[string]bool{"USAGE": true}
	case scratchObjects[object]:
		allowed = scratchPrivileges
	}
	for _, p := range strings.Split(privs, ",") {
		if p = strings.TrimSpace(p); p != "" && !allowed[p] && p != "USAGE" {
			return p + " ON " + object, ""
		}
	}
	return "", ""
}

// vetAccount refuses (engine.ErrPrivileged) an account whose
// grants, or those of a role it holds (to a depth of 4), give more than
// the documented grant (excessGrant).
func vetAccount(ctx context.Context, db *sql.DB) error {
	var user string
	if err := db.QueryRowContext(ctx, "SELECT CURRENT_USER()").Scan(&user); err != nil {
		return fmt.Errorf("--db: cannot read the account: %w", err)
	}
	excess, err := vetGrants(ctx, db, "SHOW GRANTS", 0)
	if err != nil {
		return fmt.Errorf("--db: cannot read the account's privileges: %w", err)
	}
	if excess != "" {
		return fmt.Errorf("%w: account %s holds %s, beyond what equiv needs, so a pair's query could use it (read server files, see other sessions, change other databases); %s, or pass --allow-superuser", engine.ErrPrivileged, user, excess, mysqlGrantAdvice)
	}
	return nil
}

// vetGrants returns the first excess privilege of the lines stmt lists.
func vetGrants(ctx context.Context, db *sql.DB, stmt string, depth int) (string, error) {
	rows, err := db.QueryContext(ctx, stmt)
	if err != nil {
		return "", err
	}
	var lines []string
	for rows.Next() {
		var g string
		if err := rows.Scan(&g); err != nil {
			rows.Close()
			return "", err
		}
		lines = append(lines, g)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return "", err
	}
	for _, g := range lines {
		excess, role := excessGrant(g)
		if excess != "" {
			return excess, nil
		}
		if role == "" {
			continue
		}
		if depth >= 4 {
			return "roles nested deeper than 4 (" + role + ")", nil
		}
		if excess, err := vetGrants(ctx, db, "SHOW GRANTS FOR "+role, depth+1); err != nil || excess != "" {
			if err != nil {
				return "", fmt.Errorf("role %s: %w", role, err)
			}
			return excess + " (through role " + role + ")", nil
		}
	}
	return "", nil
}
