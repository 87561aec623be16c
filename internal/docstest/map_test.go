package docstest

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/sqljudge/sqljudge/internal/shareddata"
)

// mapRow is a row of the map's table: its first cell, a package path in
// backquotes.
var mapRow = regexp.MustCompile("(?m)^\\| `([^`]+)` \\|")

// TestDevelopmentMap: the map of the house in docs/development.md has one
// row per package of `go list ./...` and no row for a package that is
// gone, so that a new package cannot land without its line.
func TestDevelopmentMap(t *testing.T) {
	root := filepath.Dir(shareddata.Subset(t))
	src, err := os.ReadFile(filepath.Join(root, "docs", "development.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(src), "\n## A map of the house\n")
	if !ok {
		t.Fatal(`docs/development.md has no "## A map of the house" section`)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	var documented []string
	for _, m := range mapRow.FindAllStringSubmatch(section, -1) {
		documented = append(documented, m[1])
	}
	cmd := exec.Command("go", "list", "-f", "{{.ImportPath}}", "./...")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list ./...: %v", err)
	}
	var listed []string
	for _, p := range strings.Fields(string(out)) {
		listed = append(listed, strings.TrimPrefix(p, "github.com/sqljudge/sqljudge/"))
	}
	if len(listed) == 0 {
		t.Fatal("go list ./... listed no package")
	}
	for _, p := range listed {
		if !slices.Contains(documented, p) {
			t.Errorf("package %s is not in the map of docs/development.md: add its line", p)
		}
	}
	for _, p := range documented {
		if !slices.Contains(listed, p) {
			t.Errorf("the map of docs/development.md names %s, which go list ./... does not list", p)
		}
	}
	if want := slices.Sorted(slices.Values(documented)); !slices.Equal(documented, want) {
		t.Errorf("the map's rows are not in go list's order")
	}
}
