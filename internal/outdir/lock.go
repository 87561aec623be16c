package outdir

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/gofrs/flock"
)

// LockFile is the name of the lock file in an output folder.
const LockFile = ".sqljudge.lock"

// ErrLocked is returned when another run (this process or another) holds
// the output folder.
var ErrLocked = errors.New("output folder in use")

// Lock creates the output folder dir if missing (mode 0755) and takes an
// exclusive lock on it (flock(2) on dir/.sqljudge.lock via
// github.com/gofrs/flock; released by the kernel if the process dies)
// without waiting, and returns the function that releases it. A folder
// already locked is ErrLocked naming the folder; one that cannot be made,
// an error saying so.
func Lock(dir string) (unlock func(), err error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("cannot create output folder: %w", err)
	}
	path := filepath.Join(dir, LockFile)
	l := flock.New(path)
	ok, err := l.TryLock()
	if err != nil {
		return nil, fmt.Errorf("cannot lock the output folder %s: %w", dir, err)
	}
	if !ok {
		return nil, fmt.Errorf("%w: another sqljudge run is writing to %s (it holds %s); wait for it to end or choose another --out", ErrLocked, dir, path)
	}
	return func() { _ = l.Unlock() }, nil
}
