package serve

import (
	"database/sql"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sqljudge/sqljudge/internal/engine/sqlite"
	"github.com/sqljudge/sqljudge/internal/shareddata"
)

// escapeRoot builds a --db folder holding a copy of concert_singer, a
// secret database outside it (base/secret.sqlite, table creds), and two
// symlinks inside --db that reach the secret: leak/leak.sqlite (a file
// link) and leakdir (a folder link). It returns --db, the db_id that
// reaches the secret by "..", and the secret's password.
func escapeRoot(t *testing.T) (root, dotdot, password string) {
	t.Helper()
	base := t.TempDir()
	root = filepath.Join(base, "db")
	password = "hunter2-TOPSECRET"
	src, err := os.ReadFile(shareddata.Path(t, "spider", "database", "concert_singer", "concert_singer.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(root, "concert_singer"), 0o755))
	must(os.WriteFile(filepath.Join(root, "concert_singer", "concert_singer.sqlite"), src, 0o644))
	secret := filepath.Join(base, "secret.sqlite")
	db, err := sql.Open("sqlite3", secret)
	must(err)
	_, err = db.Exec("CREATE TABLE creds(user TEXT, password TEXT); INSERT INTO creds VALUES ('admin', '" + password + "')")
	must(err)
	db.Close()
	must(os.MkdirAll(filepath.Join(root, "leak"), 0o755))
	must(os.Symlink(secret, filepath.Join(root, "leak", "leak.sqlite")))
	must(os.Mkdir(filepath.Join(base, "leakdir"), 0o755))
	must(os.Symlink(secret, filepath.Join(base, "leakdir", "leakdir.sqlite")))
	must(os.Symlink(filepath.Join(base, "leakdir"), filepath.Join(root, "leakdir")))
	return root, "../secret", password
}

// TestDBIDCannotLeaveDB attacks /v1/grade and /v1/openrlhf with db_ids
// that reach a secret database outside --db (by "..", by a symlinked file,
// by a symlinked folder, by an absolute path): each request is a 400 that
// names the rule, and no byte of the secret (nor the server's paths)
// reaches the reply.
func TestDBIDCannotLeaveDB(t *testing.T) {
	root, dotdot, password := escapeRoot(t)
	eng := sqlite.New(root, sqlite.Options{})
	t.Cleanup(func() { eng.Close() })
	s := New(Config{Engine: eng, Timeout: 30 * time.Second})
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(func() { ts.Close(); s.Close() })
	steal := "SELECT json_extract('{}', user||':'||password) FROM creds"
	for _, db := range []string{dotdot, "leak", "leakdir", filepath.Join(filepath.Dir(root), "secret"), "concert_singer/../../secret"} {
		bodies := map[string]any{
			"/v1/grade": GradeRequest{Items: []GradeItem{
				{DBID: "concert_singer", Gold: Gold{"SELECT 1"}, Pred: ptr("SELECT 1")},
				{DBID: db, Gold: Gold{steal}, Pred: ptr(steal)},
			}},
			"/v1/openrlhf": map[string]any{
				"query":  []string{"SELECT 1", steal},
				"labels": []any{`{"db_id": "concert_singer", "gold": "SELECT 1"}`, map[string]any{"db_id": db, "gold": steal}},
			},
		}
		for path, body := range bodies {
			code, out := post(t, ts.URL+path, body)
			if code != http.StatusBadRequest || !strings.Contains(string(out), "db_id") {
				t.Errorf("%s db_id %q: HTTP %d %s; want 400 naming the db_id rule", path, db, code, out)
			}
			if strings.Contains(string(out), password) || strings.Contains(string(out), "admin:") || strings.Contains(string(out), root) {
				t.Errorf("%s db_id %q: the reply leaks the secret or a server path: %s", path, db, out)
			}
		}
	}
	// The database inside --db still grades.
	if r := grade(t, ts.URL, GradeRequest{Items: []GradeItem{{DBID: "concert_singer", Gold: Gold{"SELECT count(*) FROM singer"}, Pred: ptr("SELECT count(*) FROM singer")}}}); r[0].Verdict != Correct {
		t.Errorf("concert_singer: %+v", r[0])
	}
	resp, err := http.Get(ts.URL + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
}
