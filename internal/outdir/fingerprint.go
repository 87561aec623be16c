package outdir

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
)

// FingerprintFile is the name of a run's fingerprint in its output folder.
const FingerprintFile = "fingerprint.json"

// ErrSettingsChanged is returned by a resumed run whose inputs or settings
// differ from those of the run that wrote the output folder.
var ErrSettingsChanged = errors.New("cannot resume: the inputs or settings changed")

// Fingerprint names what a run's verdicts depend on, so that --resume never
// mixes verdicts graded under different settings. It is written as
// OUT/fingerprint.json:
//
//	{"version": "v0.3.0", "inputs": {"gold": "sha256:…", "pred": "sha256:…"},
//	 "settings": {"keep_distinct": "false", "max_rows": "100000", …}}
//
// Version is sqljudge's version; Inputs maps an input's role (gold, pred,
// tables) to its content hash (FileHash); Settings maps each option that
// changes a verdict (--keep-distinct, --em-fixed, --max-rows, --timeout,
// the suite, the judge's model...) to its value as text. Which metrics run
// is not part of it: --resume may add a metric.
type Fingerprint struct {
	Version  string            `json:"version"`
	Inputs   map[string]string `json:"inputs"`
	Settings map[string]string `json:"settings"`
}

// FileHash returns "sha256:<hex>" of the file at path, or "" for path "".
func FileHash(path string) (string, error) {
	if path == "" {
		return "", nil
	}
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("cannot hash %s: %w", path, err)
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}

// Diff lists what differs from old to f, one "name: old -> new" per line,
// in a fixed order (version, then inputs and settings by name).
func (f *Fingerprint) Diff(old *Fingerprint) []string {
	var out []string
	show := func(s string) string {
		if s == "" {
			return "(none)"
		}
		return s
	}
	if old.Version != f.Version {
		out = append(out, fmt.Sprintf("sqljudge version: %s -> %s", show(old.Version), show(f.Version)))
	}
	for _, pair := range [][2]map[string]string{{old.Inputs, f.Inputs}, {old.Settings, f.Settings}} {
		keys := slices.Sorted(maps.Keys(pair[0]))
		for k := range pair[1] {
			if _, ok := pair[0][k]; !ok {
				keys = append(keys, k)
			}
		}
		slices.Sort(keys)
		for _, k := range slices.Compact(keys) {
			if a, b := pair[0][k], pair[1][k]; a != b {
				out = append(out, fmt.Sprintf("%s: %s -> %s", k, show(a), show(b)))
			}
		}
	}
	return out
}

// ReadFingerprint reads dir/fingerprint.json. A missing file is an error
// wrapping os.ErrNotExist; a malformed one an error naming the file.
func ReadFingerprint(dir string) (*Fingerprint, error) {
	path := filepath.Join(dir, FingerprintFile)
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var fp Fingerprint
	if err := json.Unmarshal(b, &fp); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return &fp, nil
}

// WriteFingerprint writes fp to dir/fingerprint.json atomically
// (WriteFile), indented by two spaces, with a final newline; an error names
// the file.
func WriteFingerprint(dir string, fp *Fingerprint) error {
	b, err := json.MarshalIndent(fp, "", "  ")
	if err != nil {
		return err
	}
	path := filepath.Join(dir, FingerprintFile)
	if err := WriteBytes(path, append(b, '\n')); err != nil {
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	return nil
}
