package outdir

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
)

// ErrOutputExists is returned when an output folder holds an earlier run's
// records and the user asked neither to resume it nor to overwrite it, so
// no finished run is lost. Each command's message names the file and its
// remedy (--resume, --overwrite).
var ErrOutputExists = errors.New("output already exists")

// ReadJournal reads the JSONL journal at path line by line, calling line
// with each complete non-blank line (its 1-based number and its bytes,
// spaces trimmed; the slice is the caller's to keep). A last line without
// its newline (a write cut short by a crash: every record is written with
// its newline) is not passed on; valid is the length of the file up to the
// last complete line, what ResumeJournal keeps. An error from line stops the
// reading and is returned as it is (the caller names the file and line);
// a missing file is an error wrapping os.ErrNotExist.
func ReadJournal(path string, line func(n int, b []byte) error) (valid int64, err error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 1<<20)
	var off int64
	for n := 1; ; n++ {
		b, rerr := br.ReadBytes('\n')
		if len(b) > 0 {
			if b[len(b)-1] != '\n' {
				return off, nil // torn last line
			}
			if t := bytes.TrimSpace(b); len(t) > 0 {
				if err := line(n, t); err != nil {
					return 0, err
				}
			}
			off += int64(len(b))
		}
		if rerr == io.EOF {
			return off, nil
		}
		if rerr != nil {
			return 0, rerr
		}
	}
}

// JSON encodes v as json.Marshal does (HTML characters escaped): the
// encoding of eval's results.jsonl and generate's ledger.jsonl.
func JSON[T any](v T) ([]byte, error) { return json.Marshal(v) }

// JSONNoEscape encodes v as json.Marshal does but with <, > and & as they
// are: the encoding of equiv's results.jsonl.
func JSONNoEscape[T any](v T) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// Journal appends records of type T to a JSONL file in sequence order,
// whatever the order they complete in: Put(seq, v) holds v until the
// records 0..seq-1 are written. Each record is encoded (without newline)
// by the journal's encode function and written with its newline; the
// file is flushed after each batch Put writes, not synced (a crash of the
// process keeps every written line; one of the machine may lose the last
// ones). Put may be called from several goroutines.
type Journal[T any] struct {
	// Before, if set, is called with each record in order just before it
	// is encoded, and may change it (eval keeps the first --samples
	// samples).
	Before func(v *T)
	// After, if set, is told of each record in order once it is written;
	// an error from it stops the journal: Put flushes what is written and
	// returns the error, and every later Put returns it too.
	After func(v T) error

	f       *os.File
	w       *bufio.Writer
	name    string
	encode  func(T) ([]byte, error)
	mu      sync.Mutex
	pending map[int]T
	next    int
	err     error
}

// ResumeJournal reads the journal of an earlier run at path as
// ReadJournal does and truncates the file to its complete lines, dropping
// a torn last line, so that OpenJournal appends after the last complete
// record. Errors are ReadJournal's and the truncation's.
func ResumeJournal(path string, line func(n int, b []byte) error) error {
	valid, err := ReadJournal(path, line)
	if err != nil {
		return err
	}
	return os.Truncate(path, valid)
}

// OpenJournal opens the journal at path for appending (after ResumeJournal
// when resuming), creating it (mode 0644) if missing. encode gives a
// record's line without its newline (JSON or JSONNoEscape). Write errors
// name the file.
func OpenJournal[T any](path string, encode func(T) ([]byte, error)) (*Journal[T], error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("cannot open %s: %w", path, err)
	}
	return &Journal[T]{f: f, w: bufio.NewWriterSize(f, 1<<16), name: path, encode: encode, pending: map[int]T{}}, nil
}

// Put adds record seq (0, 1, 2, … each once) and writes every record that
// is now next in sequence, in order, then flushes. It returns the first
// error of an encoding, a write or After; after one, the journal writes
// nothing more.
func (j *Journal[T]) Put(seq int, v T) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.err != nil {
		return j.err
	}
	j.pending[seq] = v
	for {
		v, ok := j.pending[j.next]
		if !ok {
			break
		}
		delete(j.pending, j.next)
		if j.Before != nil {
			j.Before(&v)
		}
		b, err := j.encode(v)
		if err != nil {
			j.err = fmt.Errorf("cannot encode record %d of %s: %w", j.next, j.name, err)
			return j.err
		}
		if _, err := j.w.Write(append(b, '\n')); err != nil {
			j.err = fmt.Errorf("cannot write %s: %w", j.name, err)
			return j.err
		}
		j.next++
		if j.After == nil {
			continue
		}
		if err := j.After(v); err != nil {
			if ferr := j.w.Flush(); ferr != nil {
				err = fmt.Errorf("cannot write %s: %w", j.name, ferr)
			}
			j.err = err
			return err
		}
	}
	if err := j.w.Flush(); err != nil {
		j.err = fmt.Errorf("cannot write %s: %w", j.name, err)
	}
	return j.err
}

// Close flushes and closes the file. Records still waiting for an earlier
// one are not written (a resumed run does them again).
func (j *Journal[T]) Close() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	ferr := j.w.Flush()
	cerr := j.f.Close()
	if ferr != nil {
		return fmt.Errorf("cannot write %s: %w", j.name, ferr)
	}
	if cerr != nil {
		return fmt.Errorf("cannot write %s: %w", j.name, cerr)
	}
	return nil
}

// WriteJSONL writes recs to path as a journal holds them (one encoded
// record and a newline each, in the order given), atomically (WriteFile):
// how a journal is rewritten in input order at the end of a resumed run.
func WriteJSONL[T any](path string, recs []T, encode func(T) ([]byte, error)) error {
	return WriteFile(path, func(f io.Writer) error {
		w := bufio.NewWriterSize(f, 1<<16)
		for k, r := range recs {
			b, err := encode(r)
			if err != nil {
				return fmt.Errorf("cannot encode record %d of %s: %w", k, path, err)
			}
			if _, err := w.Write(append(b, '\n')); err != nil {
				return err
			}
		}
		return w.Flush()
	})
}
