package check

import "testing"

// TestEveryFamilyHasStorageClasses: every family the kernel models
// (String not "other") says which storage classes its values have, so
// that a family fact can be checked on a database's rows, and reads back
// from its name.
func TestEveryFamilyHasStorageClasses(t *testing.T) {
	n := 0
	for f := Family(0); f < 255; f++ {
		if f.String() == "other" {
			continue
		}
		n++
		if c, ok := f.StorageClasses(); !ok || len(c) == 0 {
			t.Errorf("family %s has no storage classes", f)
		}
		if g, ok := FamilyNamed(f.String()); !ok || g != f {
			t.Errorf("FamilyNamed(%q) = %v, %v", f, g, ok)
		}
	}
	if n < 3 {
		t.Errorf("%d families found", n)
	}
	if _, ok := Other.StorageClasses(); ok {
		t.Error("other claims storage classes")
	}
	if _, ok := FamilyNamed("float"); ok {
		t.Error("FamilyNamed accepts an unknown name")
	}
}
