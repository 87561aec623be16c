//go:build cgo

package sqlite

/*
#include <stdint.h>

typedef struct sqlite3 sqlite3;
// SQLite's own functions, compiled into the binary by go-sqlite3.
extern void sqlite3_progress_handler(sqlite3*, int, int(*)(void*), void*);
extern long long sqlite3_memory_used(void);
extern long long sqlite3_hard_heap_limit64(long long);
extern long long sqlite3_soft_heap_limit64(long long);

// progress.go's Go function.
extern int sqljudgeProgress(uintptr_t);

static int sqljudge_progress(void *arg) { return sqljudgeProgress((uintptr_t)arg); }

// sqljudge_set_progress calls progress.go's function with h every n
// virtual machine instructions of db's statements; h == 0 removes it.
static void sqljudge_set_progress(void *db, int n, uintptr_t h) {
	sqlite3_progress_handler((sqlite3*)db, h ? n : 0, h ? sqljudge_progress : 0, (void*)h);
}

static long long sqljudge_memory_used(void) { return sqlite3_memory_used(); }

static void sqljudge_heap_limit(long long n) {
	sqlite3_hard_heap_limit64(n);
	sqlite3_soft_heap_limit64(n / 2);
}
*/
import "C"

import (
	"reflect"
	"runtime/cgo"
	"unsafe"

	sqlite3 "github.com/mattn/go-sqlite3"
)

// dbField is the offset of the sqlite3* handle in go-sqlite3's
// SQLiteConn (its unexported field db), which the driver does not expose:
// the progress handler is set on it. connHandle checks its type once.
var dbField = func() uintptr {
	f, ok := reflect.TypeFor[sqlite3.SQLiteConn]().FieldByName("db")
	if !ok || f.Type.Kind() != reflect.Pointer || f.Type.Elem().Name() != "_Ctype_struct_sqlite3" {
		panic("engine/sqlite: go-sqlite3's SQLiteConn has no field db *C.sqlite3 (a new version of the driver?)")
	}
	return f.Offset
}()

// connHandle returns c's sqlite3* handle (nil when the connection is
// closed).
func connHandle(c *sqlite3.SQLiteConn) unsafe.Pointer {
	return *(*unsafe.Pointer)(unsafe.Add(unsafe.Pointer(c), dbField))
}

// setProgress makes SQLite call p.step every progressEvery instructions
// of c's statements until the returned function removes it.
func setProgress(c *sqlite3.SQLiteConn, p *progress) (remove func()) {
	db := connHandle(c)
	if db == nil {
		return func() {}
	}
	h := cgo.NewHandle(p)
	C.sqljudge_set_progress(db, progressEvery, C.uintptr_t(h))
	return func() {
		C.sqljudge_set_progress(db, 0, 0)
		h.Delete()
	}
}

// heapUsed returns the bytes SQLite's allocator holds now, every
// connection of the process included (sqlite3_memory_used).
func heapUsed() int64 { return int64(C.sqljudge_memory_used()) }

// setHeapLimit sets SQLite's process-wide heap cap to n bytes (a soft
// limit at half of it), as Pragmas does on each connection.
func setHeapLimit(n int64) { C.sqljudge_heap_limit(C.longlong(n)) }
