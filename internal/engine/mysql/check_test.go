package mysql_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/sqljudge/sqljudge/internal/engine"
	"github.com/sqljudge/sqljudge/internal/engine/mysql"
	"github.com/sqljudge/sqljudge/internal/testserver"
)

// TestCheckQueryReadsAsMySQL (issue 41): the query check reads a text as
// MySQL and MariaDB do, and refuses what they would run that is not one
// read-only query: a comment they run as code (/*! … */, /*M! … */ in any
// case and with any version, /*+ … */), INTO, a second statement,
// wherever SQLite's reading of quotes and comments would hide it (\' in a
// string, -- not followed by a space, # comments, [ … ]), and under every
// sql_mode (a text that only some readings refuse is refused). What is
// only inside a string, a quoted name or a plain comment is not.
func TestCheckQueryReadsAsMySQL(t *testing.T) {
	refused := []string{
		"/*!SET SESSION tx_read_only = */ (SELECT 0)",
		"/*!SET PASSWORD = PASSWORD('pwned'), SESSION sql_mode = */ (SELECT 'x')",
		"/*!SET PASSWORD = PASSWORD('pwned'), SESSION sql_mode = */ (SELECT '')",
		"/*!KILL CONNECTION */ (SELECT 5)",
		"/*!SET STATEMENT max_statement_time=0 FOR */ SELECT BENCHMARK(1, 1)",
		"/*M!SET SESSION tx_read_only = */ (SELECT 0)",
		"/*m!SET SESSION tx_read_only = */ (SELECT 0)",
		"/*!50000 SET SESSION tx_read_only = */ (SELECT 0)",
		"/*M!100502 SET SESSION tx_read_only = */ (SELECT 0)",
		"/*!999999 x */ SELECT 1",
		"SELECT /*+ MAX_EXECUTION_TIME(0) */ 1",
		"SELECT 1 /*!, 2 */",
		"SELECT 1 FROM t WHERE 1 /*!AND 0*/",
		"SELECT '\\'' /*!, 2 */ '",
		"SELECT \"\\\"\" /*!, 2 */ \"",
		"SELECT 1--1, /*!2*/ 3",
		"SELECT 1 --\t\n/*!, 2 */",
		"SELECT 1 #x\n/*!, 2 */",
		"SELECT [ /*!, 2 */ ]",
		"SELECT 'x\\' /*!, 2 */ '", // a comment when backslashes are not escapes (NO_BACKSLASH_ESCAPES)
		"SELECT \"x\\\" /*!, 2 */ \"",
		"SELECT 'a\\'' INTO @v -- '",
		"SELECT 'a\\'' INTO OUTFILE '/tmp/sjv_out' -- '",
		"SELECT a INTO @v FROM t",
		"SELECT '\\''; DELETE FROM t -- '",
		"SELECT 1 --1; DELETE FROM t",
		"-1",
	}
	for _, q := range refused {
		if _, err := mysql.CheckQuery("d", q); !errors.Is(err, engine.ErrRejected) {
			t.Errorf("CheckQuery(%q) = %v, want ErrRejected", q, err)
		}
	}
	accepted := []string{
		"SELECT '/*!KILL 5*/'",
		"SELECT \"/*!KILL 5*/\"",
		"SELECT `/*!x*/` FROM t",
		"SELECT 1 -- /*!x*/",
		"SELECT 1 # /*!x*/",
		"SELECT 1 /* /*!x */",
		"SELECT 1 /* plain */ FROM t",
		"SELECT 'it''s', 'a\\\\', \"b\" FROM t",
		"SELECT 1 - -1",
		"SELECT 'into' AS x, `into` FROM t",
		"(SELECT 1) UNION (SELECT 2);",
		"WITH x AS (SELECT 1) SELECT * FROM x",
	}
	for _, q := range accepted {
		if _, err := mysql.CheckQuery("d", q); err != nil {
			t.Errorf("CheckQuery(%q) = %v, want nil", q, err)
		}
	}
	for q, want := range map[string]bool{"-- x\n;": true, "# x": true, "/* x */": true, "--x": false} {
		blank, err := mysql.CheckQuery("d", q)
		if want && (err != nil || !blank) {
			t.Errorf("CheckQuery(%q) = %v, %v; want blank", q, blank, err)
		}
		if !want && blank {
			t.Errorf("CheckQuery(%q): blank, but MySQL reads a statement in it", q)
		}
	}
	if _, err := mysql.ParseDSN("mysql://u:p@h/?charset=gbk"); err == nil || !strings.Contains(err.Error(), "gbk") {
		t.Errorf("a gbk client character set: %v, want it refused", err)
	}
	if _, err := mysql.ParseDSN("u:p@tcp(h:1)/?collation=sjis_japanese_ci"); err == nil {
		t.Error("an sjis collation was accepted")
	}
}

// TestCodeCommentsRefusedInEval (issue 41): eval on MariaDB shares the
// query check: as an account that may only read, a prediction changed the
// account's password and killed another session of the account, through
// comments MariaDB runs as code. Both are refused before they are sent.
func TestCodeCommentsRefusedInEval(t *testing.T) {
	server := testserver.MySQL(t)
	prefix, db := fixture(t, server)
	ctx := context.Background()
	dsn := testserver.MySQLAccount(t, server, map[string][]string{prefix + db: {"Select_priv"}})
	victim, victimID := testserver.MySQLSession(t, dsn)
	e, err := mysql.New(dsn, mysql.Options{DBPrefix: prefix})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	for _, q := range []string{
		"/*!SET PASSWORD = PASSWORD('pwned'), SESSION sql_mode = */ (SELECT 'x')",
		"/*!SET PASSWORD = PASSWORD('pwned'), SESSION sql_mode = */ (SELECT '')",
		fmt.Sprintf("/*!KILL CONNECTION */ (SELECT %d)", victimID),
	} {
		if set, err := e.Query(ctx, db, q); !errors.Is(err, engine.ErrRejected) {
			t.Errorf("%s: %v, %v; want it refused before it is sent", q, set, err)
		}
	}
	if err := testserver.OpenMySQL(t, dsn, "").PingContext(ctx); err != nil {
		t.Errorf("the account no longer logs in with its password: %v", err)
	}
	if !testserver.AliveMySQL(victim, victimID) {
		t.Error("the account's other session was killed")
	}
}

// TestCheckQueryAgainstServer checks the query check's reading of quotes
// and comments against the server's own: random texts of quotes,
// backslashes, dashes, hashes and newlines around a comment that adds a
// column when the server runs it (/*!, 2 */ or /*M!, 2 */), each sent to
// MariaDB under the default sql_mode, NO_BACKSLASH_ESCAPES and
// ANSI_QUOTES. Whenever the server ran the comment (a column named 2 came
// back), CheckQuery must have refused the text.
func TestCheckQueryAgainstServer(t *testing.T) {
	server := testserver.MySQL(t)
	ctx := context.Background()
	c, err := testserver.OpenMySQL(t, server, "").Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	r := rand.New(rand.NewPCG(41, 3))
	// Pieces that the two readings split differently, and that often
	// leave a statement the server accepts.
	pieces := []string{"'", "\"", "`", "\\", "'\\''", "'a\\'", "\"\\\"\"", "''", "-- x\n", "--1", "- -1", "#y\n", "/* z */", "[", " ", "\n", ", 3", "+1"}
	ran, refused, n := 0, 0, 0
	for _, mode := range []string{"''", "'NO_BACKSLASH_ESCAPES'", "'ANSI_QUOTES'", "'ANSI_QUOTES,NO_BACKSLASH_ESCAPES'"} {
		if _, err := c.ExecContext(ctx, "SET SESSION sql_mode = "+mode); err != nil {
			t.Fatal(err)
		}
		for range 400 {
			n++
			var b strings.Builder
			b.WriteString("SELECT 1")
			code := []string{"/*!, 2 */", "/*M!, 2 */", "/*!100000 , 2 */"}[r.IntN(3)]
			at := r.IntN(4)
			for i := range 4 {
				if i == at {
					b.WriteString(code)
				}
				b.WriteString(pieces[r.IntN(len(pieces))])
			}
			q := b.String()
			_, checkErr := mysql.CheckQuery("d", q)
			if checkErr != nil {
				refused++
			}
			rows, err := c.QueryContext(ctx, q)
			if err != nil {
				continue
			}
			cols, _ := rows.Columns()
			rows.Close()
			if len(cols) >= 2 && cols[1] == "2" {
				ran++
				if checkErr == nil {
					t.Errorf("sql_mode %s: the server ran the comment of %q, which CheckQuery let through", mode, q)
				}
			}
		}
	}
	t.Logf("of %d texts the server ran the comment of %d; CheckQuery refused %d", n, ran, refused)
	if ran == 0 {
		t.Error("the server ran no comment: the texts test nothing")
	}
}
