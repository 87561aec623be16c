package equiv

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/sqljudge/sqljudge/internal/sandbox"
	"github.com/sqljudge/sqljudge/internal/testserver"
)

// TestCleanupDropsOnlyMarked (issue 41): `equiv --cleanup` drops the stale
// scratch databases a run of sqljudge made, known by the marker each
// carries (sandbox.Marker), and not a database someone else made under a
// matching name: it dropped one root had made.
func TestCleanupDropsOnlyMarked(t *testing.T) {
	server := testserver.MySQL(t)
	ctx := context.Background()
	dsn := testserver.MySQLAccount(t, server, map[string][]string{`sqljudge\\_equiv\\_%`: {"Select_priv", "Insert_priv", "Delete_priv", "Create_priv", "Drop_priv", "References_priv"}})
	old := time.Now().Add(-time.Hour).Unix()
	part := strings.TrimSuffix(testserver.Name(""), "_")
	made := fmt.Sprintf("sqljudge_equiv_%d_%s_1", old, part)
	roots := fmt.Sprintf("sqljudge_equiv_%d_%s_2", old, part)
	admin := testserver.OpenMySQL(t, server, "")
	for _, q := range []string{"CREATE DATABASE " + made + " COMMENT '" + sandbox.Marker(made) + "'", "CREATE DATABASE " + roots} {
		if _, err := admin.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		for _, n := range []string{made, roots} {
			_, _ = admin.ExecContext(context.Background(), "DROP DATABASE IF EXISTS "+n)
		}
	})
	var out strings.Builder
	if err := RunCommand(ctx, CommandOptions{DB: dsn, Cleanup: true}, &out); err != nil {
		t.Fatal(err)
	}
	left := testserver.MySQLDatabases(t, server, "sqljudge_equiv_"+fmt.Sprint(old)+"_"+part)
	if len(left) != 1 || left[0] != roots {
		t.Errorf("left %v, want only %s (made without the marker); --cleanup said: %s", left, roots, out.String())
	}
}
