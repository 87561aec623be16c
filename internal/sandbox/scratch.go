package sandbox

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"regexp"
	"strconv"
	"sync"
	"time"
)

// Scratch databases on a server are named
// sqljudge_equiv_<unix seconds>_<8 random hex digits>_<n>: the time the
// sandbox was made, a part that keeps concurrent runs apart, and a
// counter. A run that is killed (kill -9, a lost connection) cannot drop
// its scratch databases; the next sandbox on that server drops those that
// are stale (sandbox/postgres.New, sandbox/mysql.New), and `sqljudge equiv
// --cleanup` does so on demand. A scratch database is stale when it was
// made more than StaleAfter ago and no session is connected to it (a run
// keeps a session on each of its scratch databases from creation to drop,
// however long its pair takes); on PostgreSQL it must also belong to the
// sandbox's role. A name alone does not make a database a scratch
// database: the sandbox marks each one it creates (Marker: PostgreSQL's
// COMMENT ON DATABASE, MariaDB's CREATE DATABASE … COMMENT), and only a
// database so marked is ever dropped by a sweep (a database someone else
// made under a matching name is left alone, and so are the unmarked
// scratch databases of versions before the marker, and MySQL's, which
// keeps no comment on a database). Names of the older form
// sqljudge_equiv_<8 hex>_<n> (before the time was in the name) are stale
// when no session is connected.

// Marker is the comment a server sandbox writes on the scratch database
// name it creates, by which a sweep knows it made it: "sqljudge equiv
// scratch database <name>".
func Marker(name string) string { return MarkerPrefix + name }

// MarkerPrefix starts every Marker.
const MarkerPrefix = "sqljudge equiv scratch database "

// StaleAfter is the age past which a scratch database with no session is
// a leftover.
const StaleAfter = 10 * time.Minute

var (
	scratchNameRe = regexp.MustCompile(`^sqljudge_equiv_([0-9]{10})_[0-9a-f]{8}_[0-9]+$`)
	legacyNameRe  = regexp.MustCompile(`^sqljudge_equiv_[0-9a-f]{8}_[0-9]+$`)
)

// ScratchPrefix returns a new sandbox's name prefix; its scratch databases
// are named prefix_<n>.
func ScratchPrefix() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	p := fmt.Sprintf("sqljudge_equiv_%d_%s", time.Now().Unix(), hex.EncodeToString(b[:]))
	made.Lock()
	made.prefixes = append(made.prefixes, p)
	made.Unlock()
	return p
}

// made holds the prefixes ScratchPrefix returned in this process: one per
// server sandbox, which a command makes once a run (a few bytes each).
var made struct {
	sync.Mutex
	prefixes []string
}

// IsMadeHere reports whether the scratch database name is one of this
// process's (a prefix ScratchPrefix returned here, followed by "_"): what
// tells this process's scratch databases from those of other runs on the
// same server (a test checking that a command dropped its own while other
// test binaries use the server).
func IsMadeHere(name string) bool {
	made.Lock()
	defer made.Unlock()
	for _, p := range made.prefixes {
		if len(name) > len(p) && name[:len(p)] == p && name[len(p)] == '_' {
			return true
		}
	}
	return false
}

// IsStaleName reports whether name is a scratch database name made more
// than age before now (or of the older form, without a time).
func IsStaleName(name string, now time.Time, age time.Duration) bool {
	if legacyNameRe.MatchString(name) {
		return true
	}
	m := scratchNameRe.FindStringSubmatch(name)
	if m == nil {
		return false
	}
	sec, err := strconv.ParseInt(m[1], 10, 64)
	return err == nil && now.Sub(time.Unix(sec, 0)) > age
}
