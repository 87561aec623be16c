package htmlreport

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestShortFieldsKeepsWitness checks that an equiv witness (~1 KB, over
// maxField) reaches the page's blob whole, that em-like long fields are
// still cut, and that a witness over maxWitness is cut too.
func TestShortFieldsKeepsWitness(t *testing.T) {
	witness := `{"sql":"CREATE TABLE singer(age INT, name TEXT);\nINSERT INTO singer VALUES(36,'a');` + strings.Repeat(" ", 900) +
		`","rows":1,"q1":{"columns":["name"],"rows":[]},"q2":{"columns":["name"],"rows":[["a"]]}}`
	long := `"` + strings.Repeat("x", 300) + `"`
	in := `{"verdict":"inequivalent","witness":` + witness + `,"partial":` + long + `}`
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(shortFields(in)), &m); err != nil {
		t.Fatal(err)
	}
	if string(m["witness"]) != witness {
		t.Errorf("witness: %s; want it whole", m["witness"])
	}
	if !strings.Contains(string(m["partial"]), "bytes of JSON, in results.jsonl") {
		t.Errorf("partial: %s; want it cut", m["partial"])
	}
	huge := `{"witness":{"sql":"` + strings.Repeat("y", maxWitness) + `"}}`
	if err := json.Unmarshal([]byte(shortFields(huge)), &m); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(m["witness"]), "bytes of JSON, in results.jsonl") {
		t.Errorf("a witness over %d bytes: %.80s; want it cut", maxWitness, m["witness"])
	}
}

// TestShortFieldsKeepsProof: an equiv proof (steps and SMT obligations,
// some KB) reaches the page whole up to maxProof, and is cut beyond.
func TestShortFieldsKeepsProof(t *testing.T) {
	proof := `{"kernel":"sqljudge-prove/1","method":"normal_form","obligations":[{"name":"x","smt":"` + strings.Repeat("(assert true)", 400) + `","expect":"unsat"}]}`
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(shortFields(`{"verdict":"equivalent_proved","proof":`+proof+`}`)), &m); err != nil {
		t.Fatal(err)
	}
	if string(m["proof"]) != proof {
		t.Errorf("proof: %.80s; want it whole", m["proof"])
	}
	huge := `{"proof":{"smt":"` + strings.Repeat("y", maxProof) + `"}}`
	if err := json.Unmarshal([]byte(shortFields(huge)), &m); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(m["proof"]), "bytes of JSON, in results.jsonl") {
		t.Errorf("a proof over %d bytes: %.80s; want it cut", maxProof, m["proof"])
	}
}
