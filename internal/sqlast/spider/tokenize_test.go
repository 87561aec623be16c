package spider

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/sqljudge/sqljudge/internal/shareddata"
)

// pySpace splits on runs of whitespace, as the tokenizer did before it
// used strings.FieldsFunc.
var pySpace = regexp.MustCompile(pyWS + `+`)

// unguardedWordTokenize is wordTokenize as it was before its substitutions
// had guards and hand-written substitutions: every regexp runs on every text. The guarded tokenizer must
// give the same tokens for every input.
func unguardedWordTokenize(text string) []string {
	for _, s := range startingQuotes {
		text = s.re.ReplaceAllString(text, s.repl)
	}
	for _, s := range punctuation {
		text = s.re.ReplaceAllString(text, s.repl)
	}
	text = parensBrackets.re.ReplaceAllString(text, parensBrackets.repl)
	text = doubleDashes.re.ReplaceAllString(text, doubleDashes.repl)
	text = " " + text + " "
	text = endingQuotes.re.ReplaceAllString(text, endingQuotes.repl)
	for _, c := range contractions {
		text = splitContraction(text, c.re, c.needSpace)
	}
	var out []string
	for _, f := range pySpace.Split(text, -1) {
		if f != "" {
			out = append(out, f)
		}
	}
	return out
}

// tokenizerCases trigger each substitution, its guard's edge cases (a
// period followed by closers and spaces of both kinds, folded letters of
// the contractions) and none.
var tokenizerCases = []string{
	"", " ", "select count(*) from singer", "SELECT T1.name FROM a AS T1 JOIN b AS T2 ON T1.id = T2.id",
	"a.", "a. ", "a.)", "a.) ", "a.\t)", "a.)\t", "a.»", "a.” ", "a .", "..", "a...", "a.\u00a0", "a.\u2003)",
	"x.y", "T1.a = 1.5", "a:b", "a,b", "a,1", "a:", "a,", "1,000", "a;b", "@x #y $z %w &v", "a?b!c", "a*b",
	"[a](b){c}<d>", "a--b", "«a» “b” ‘c’ „d", "``a``", "`a`", "a»", "a”", "a’",
	"cannot", "CanNot", "can not", "xcannot", "cannotx", "gimme", "GONNA", "gotta", "lemme", "wanna ", "wanna",
	"WANNA\tgo", "ca\u212anot", "cannot\u00e9", "é cannot", "i cannot gimme gonna gotta lemme wanna x",
	"select * from t where a != 1 and b >= 2 and c <= 3", "where x like \"%a.%\" .",
	"a.\u2028", "a.\u0085", "\u3000a.\u3000",
}

// TestWordTokenizeGuardsChangeNothing checks that the guarded word
// tokenizer splits exactly as the unguarded one on crafted texts and on
// every query of Spider's dev and train gold and of every prediction file
// (the full data when present, else the committed subset).
func TestWordTokenizeGuardsChangeNothing(t *testing.T) {
	texts := slices.Clone(tokenizerCases)
	queries, full := spiderQueries(t)
	texts = append(texts, queries...)
	for _, text := range texts {
		for _, v := range []string{strings.ReplaceAll(text, "'", `"`), text + " . ) "} {
			got, want := wordTokenize(v), unguardedWordTokenize(v)
			if !slices.Equal(got, want) {
				t.Fatalf("wordTokenize(%q) = %q; without guards %q", v, got, want)
			}
		}
	}
	// The subset holds 179 dev items with their predictions; the full data
	// all of dev and train.
	if want := map[bool]int{false: 800, true: 10000}[full]; len(queries) < want {
		t.Errorf("only %d queries of Spider checked (full data: %v); want %d", len(queries), full, want)
	}
}

// spiderQueries returns the SQL of every line of the Spider gold and
// prediction files, and whether they came from the full data (else the
// committed subset).
func spiderQueries(t *testing.T) ([]string, bool) {
	dir := shareddata.SubsetPath(t, "spider")
	full, err := shareddata.Find()
	if err == nil {
		dir = filepath.Join(full, "spider")
	}
	files, _ := filepath.Glob(filepath.Join(dir, "predictions", "*.sql"))
	files = append(files, filepath.Join(dir, "dev_gold.sql"), filepath.Join(dir, "train_gold.sql"))
	var out []string
	for _, f := range files {
		fh, err := os.Open(f)
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(fh)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			q, _, _ := strings.Cut(sc.Text(), "\t")
			out = append(out, q)
		}
		fh.Close()
	}
	return out, err == nil
}

// BenchmarkWordTokenize splits every Spider dev gold query with the
// guarded tokenizer and, for comparison, the unguarded one.
func BenchmarkWordTokenize(b *testing.B) {
	qs, err := os.ReadFile(shareddata.SubsetPath(b, "spider", "dev_gold.sql"))
	if err != nil {
		b.Fatal(err)
	}
	var texts []string
	for _, l := range strings.Split(string(qs), "\n") {
		q, _, _ := strings.Cut(l, "\t")
		texts = append(texts, strings.ReplaceAll(q, "'", `"`))
	}
	for _, c := range []struct {
		name string
		f    func(string) []string
	}{{"guarded", wordTokenize}, {"unguarded", unguardedWordTokenize}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				for _, q := range texts {
					c.f(q)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*len(texts)), "µs/query")
		})
	}
}
