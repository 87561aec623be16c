// Package sqlitefloor measures the floor of a grading run on SQLite: the
// queries the run executed, each prepared, stepped to its end and
// finalized through SQLite's C API with nothing done per row (no value is
// read). What a run costs beyond it is sqljudge's own work: checks, the
// driver's calls, reading values into results, comparing them, writing
// records. Its benchmarks (bench_test.go) record the queries an eval run
// executes on Spider dev (ex, and ts on a suite) and time both.
//
// It calls the SQLite that github.com/mattn/go-sqlite3 compiles into the
// binary (the same amalgamation, version and options as the engine's):
// the few functions it needs are declared below, as sqlite3.h declares
// them, and the linker finds them in that package's object.
package sqlitefloor

/*
#include <stdlib.h>

typedef struct sqlite3 sqlite3;
typedef struct sqlite3_stmt sqlite3_stmt;

extern int sqlite3_open_v2(const char *filename, sqlite3 **ppDb, int flags, const char *zVfs);
extern int sqlite3_close_v2(sqlite3 *db);
extern int sqlite3_prepare_v2(sqlite3 *db, const char *zSql, int nByte, sqlite3_stmt **ppStmt, const char **pzTail);
extern int sqlite3_step(sqlite3_stmt *stmt);
extern int sqlite3_finalize(sqlite3_stmt *stmt);
extern const char *sqlite3_errmsg(sqlite3 *db);

enum {
	floorOpenReadOnly = 0x00000001, // SQLITE_OPEN_READONLY
	floorOpenURI      = 0x00000040, // SQLITE_OPEN_URI
	floorOpenNoMutex  = 0x00008000, // SQLITE_OPEN_NOMUTEX
	floorOK           = 0,          // SQLITE_OK
	floorRow          = 100,        // SQLITE_ROW
	floorDone         = 101,        // SQLITE_DONE
};

// floor_run prepares sql (n bytes, its first statement), steps it to its
// end and finalizes it; *rows gets the number of rows stepped. It returns
// SQLite's result code: floorOK, or the error of prepare or step.
static int floor_run(sqlite3 *db, const char *sql, int n, long long *rows) {
	sqlite3_stmt *st = 0;
	int rc = sqlite3_prepare_v2(db, sql, n, &st, 0);
	*rows = 0;
	if (rc != floorOK || st == 0) {
		return rc;
	}
	while ((rc = sqlite3_step(st)) == floorRow) {
		(*rows)++;
	}
	sqlite3_finalize(st);
	return rc == floorDone ? floorOK : rc;
}
*/
import "C"

import (
	"fmt"
	"net/url"
	"path/filepath"
	"unsafe"

	_ "github.com/mattn/go-sqlite3" // SQLite itself: the functions above

	"github.com/sqljudge/sqljudge/internal/engine/sqlite"
)

// Conn is a read-only connection to one database file, opened as the
// SQLite engine opens it (mode=ro, immutable=1, no per-connection mutex)
// and configured as it is (sqlite.Pragmas: the heap cap, temporary
// tables and sorts in memory), so that SQLite does the same work for a
// query on both. It is for one goroutine at a time.
type Conn struct {
	db *C.sqlite3
}

// Open opens the database file at path read-only and runs sqlite.Pragmas
// on it. It fails with SQLite's message when the file is missing or not a
// database.
func Open(path string) (*Conn, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	u := url.URL{Scheme: "file", OmitHost: true, Path: abs, RawQuery: "mode=ro&immutable=1"}
	name := C.CString(u.String())
	defer C.free(unsafe.Pointer(name))
	var db *C.sqlite3
	rc := C.sqlite3_open_v2(name, &db, C.floorOpenReadOnly|C.floorOpenURI|C.floorOpenNoMutex, nil)
	if rc != C.floorOK {
		err := fmt.Errorf("sqlitefloor: open %s: %s (code %d)", path, errmsg(db), int(rc))
		C.sqlite3_close_v2(db)
		return nil, err
	}
	c := &Conn{db: db}
	for _, p := range sqlite.Pragmas() {
		if _, err := c.Run(p); err != nil {
			c.Close()
			return nil, fmt.Errorf("sqlitefloor: open %s: %s: %w", path, p, err)
		}
	}
	return c, nil
}

// Run prepares the first statement of sql, steps it to its end without
// reading any value and finalizes it, and returns the number of rows it
// stepped through. A statement SQLite cannot prepare or run returns 0 and
// SQLite's message.
func (c *Conn) Run(sql string) (rows int64, err error) {
	if sql == "" {
		return 0, nil
	}
	// One copy into C memory, as a driver makes (mattn's C.CString).
	cs := C.CString(sql)
	defer C.free(unsafe.Pointer(cs))
	var n C.longlong
	if rc := C.floor_run(c.db, cs, C.int(len(sql)), &n); rc != C.floorOK {
		return 0, fmt.Errorf("sqlitefloor: %s (code %d)", errmsg(c.db), int(rc))
	}
	return int64(n), nil
}

// Close closes the connection.
func (c *Conn) Close() error {
	if rc := C.sqlite3_close_v2(c.db); rc != C.floorOK {
		return fmt.Errorf("sqlitefloor: close: code %d", int(rc))
	}
	return nil
}

func errmsg(db *C.sqlite3) string {
	if db == nil {
		return "out of memory"
	}
	return C.GoString(C.sqlite3_errmsg(db))
}
