package judge

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"strings"
	"text/template"

	"github.com/sqljudge/sqljudge/internal/llm"
)

//go:embed prompts/*.tmpl
var promptFS embed.FS

// Template is one embedded prompt: a system and a user message rendered
// from the same data. Its ID names the step and version
// ("rose_prover.v1"); a changed wording is a new version and a new file.
type Template struct {
	// ID is the file name without ".tmpl", e.g. "flex_loose.v1".
	ID string
	// Hash is the first 12 hex digits of the SHA-256 of the file: it goes
	// into every record that used the template, so a result can be traced
	// to the exact wording.
	Hash string
	t    *template.Template
}

// Ref returns "ID@Hash", the form recorded in verdicts.
func (t *Template) Ref() string { return t.ID + "@" + t.Hash }

// PromptData is what the templates read.
type PromptData struct {
	// Question and Evidence are the item's question and BIRD-style hint.
	Question, Evidence string
	// Schema is the database schema as CREATE statements.
	Schema string
	// Pred and Gold are the predicted and reference SQL.
	Pred, Gold string
	// PredResult and GoldResult are results rendered by RenderResult.
	PredResult, GoldResult string
	// ResultsEqual tells the ROSE refuter that both results are the same
	// (they are then not shown).
	ResultsEqual bool
	// ProverReason is the ROSE prover's reason, shown to the refuter.
	ProverReason string
	// DBInfo is ROSE's database information (DBInfo.For): the tables the
	// SQL mentions and their column descriptions.
	DBInfo string
}

// Messages renders the template's system and user messages.
func (t *Template) Messages(d PromptData) ([]llm.Message, error) {
	var sys, usr strings.Builder
	if err := t.t.ExecuteTemplate(&sys, "system", d); err != nil {
		return nil, fmt.Errorf("template %s: %w", t.ID, err)
	}
	if err := t.t.ExecuteTemplate(&usr, "user", d); err != nil {
		return nil, fmt.Errorf("template %s: %w", t.ID, err)
	}
	return []llm.Message{
		{Role: "system", Content: strings.TrimSpace(sys.String())},
		{Role: "user", Content: strings.TrimSpace(usr.String())},
	}, nil
}

// The prompts, loaded once at init from the embedded files.
var (
	tmplXScore  = mustLoad("xscore.v1")
	tmplProver  = mustLoad("rose_prover.v2")
	tmplRefuter = mustLoad("rose_refuter.v2")
	tmplStrict  = mustLoad("flex_strict.v1")
	tmplLoose   = mustLoad("flex_loose.v1")
)

// Templates returns every embedded template, for listing and tests.
func Templates() []*Template {
	return []*Template{tmplXScore, tmplProver, tmplRefuter, tmplStrict, tmplLoose}
}

// mustLoad parses an embedded template; a broken one is a build defect,
// caught by any test run.
func mustLoad(id string) *Template {
	b, err := promptFS.ReadFile("prompts/" + id + ".tmpl")
	if err != nil {
		panic("judge: missing embedded prompt " + id)
	}
	t, err := template.New(id).Option("missingkey=error").Parse(string(b))
	if err != nil {
		panic("judge: prompt " + id + ": " + err.Error())
	}
	if t.Lookup("system") == nil || t.Lookup("user") == nil {
		panic("judge: prompt " + id + " must define \"system\" and \"user\"")
	}
	return &Template{ID: id, Hash: shortHash(b), t: t}
}

// shortHash is the first 12 hex digits of the SHA-256 of b: the Hash of a
// prompt's wording, recorded in "templates".
func shortHash(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])[:12]
}
