package run

import (
	"io"
	"os"
)

// WriteFileAtomic writes the file at path through write: into path+".tmp"
// (mode 0644), renamed over path once write and the close have succeeded.
// A failure leaves path as it was and removes the temporary file.
func WriteFileAtomic(path string, write func(w io.Writer) error) error {
	tmp := path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		os.Remove(tmp)
		return err
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return err
	}
	return os.Rename(tmp, path)
}
