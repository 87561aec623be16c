package outdir

import (
	"io"
	"os"
	"path/filepath"
)

// WriteFile writes the file at path through write: into path+".tmp"
// (mode 0644), renamed over path once write and the close have succeeded.
// A failure leaves path as it was and removes the temporary file. The fixed
// temporary name suits a folder held under Lock; a file that several
// processes may write at once wants WriteShared.
func WriteFile(path string, write func(w io.Writer) error) error {
	return writeVia(path, func() (*os.File, error) {
		return os.OpenFile(path+".tmp", os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	}, write)
}

// WriteBytes is WriteFile writing data.
func WriteBytes(path string, data []byte) error {
	return WriteFile(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// WriteShared is WriteFile through a temporary file of a unique name in
// path's folder (os.CreateTemp with pattern, e.g. ".tmp-*"; mode 0600),
// for files written without the folder's lock: two processes writing the
// same entry of a shared cache each rename a whole file into place.
func WriteShared(path, pattern string, write func(w io.Writer) error) error {
	return writeVia(path, func() (*os.File, error) {
		return os.CreateTemp(filepath.Dir(path), pattern)
	}, write)
}

// writeVia writes through the temporary file create opens, then renames it
// over path; a failure removes the temporary file.
func writeVia(path string, create func() (*os.File, error), write func(w io.Writer) error) error {
	f, err := create()
	if err != nil {
		return err
	}
	tmp := f.Name()
	if err := write(f); err != nil {
		f.Close()
		os.Remove(tmp)
		return err
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}
