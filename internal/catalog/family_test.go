package catalog

import "testing"

// TestFamilyOf: the families of the types the engines and benchmarks
// spell, and SQLite's affinities of the same types (they differ: SQLite
// stores a STRING or a JSON column with NUMERIC affinity).
func TestFamilyOf(t *testing.T) {
	cases := []struct {
		decl string
		fam  Family
		aff  Affinity
	}{
		{"INTEGER", Integer, AffinityInteger},
		{"bigint(20)", Integer, AffinityInteger},
		{"SERIAL", Integer, AffinityNumeric},
		{"varchar(255)", Text, AffinityText},
		{"character varying(20)", Text, AffinityText},
		{"STRING", Text, AffinityNumeric},
		{"json", Text, AffinityNumeric},
		{"", Text, AffinityBlob},
		{"REAL", Real, AffinityReal},
		{"double precision", Real, AffinityReal},
		{"NUMERIC(10,2)", Decimal, AffinityNumeric},
		{"number", Decimal, AffinityNumeric},
		{"DATE", Date, AffinityNumeric},
		{"datetime", Timestamp, AffinityNumeric},
		{"timestamp without time zone", Timestamp, AffinityNumeric},
		{"time(3)", Time, AffinityNumeric},
		{"BOOLEAN", Boolean, AffinityNumeric},
		{"bit", Boolean, AffinityNumeric},
		{"BLOB", Blob, AffinityBlob},
		{"bytea", Blob, AffinityNumeric},
	}
	for _, c := range cases {
		if got := FamilyOf(c.decl); got != c.fam {
			t.Errorf("FamilyOf(%q) = %s, want %s", c.decl, got, c.fam)
		}
		if got := SQLiteAffinity(c.decl); got != c.aff {
			t.Errorf("SQLiteAffinity(%q) = %d, want %d", c.decl, got, c.aff)
		}
	}
	if c := NewColumn("a", "varchar(12)", false); c.Len != 12 || c.Family != Text {
		t.Errorf("NewColumn: %+v", c)
	}
}
