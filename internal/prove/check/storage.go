package check

// storageClasses are, for each family the kernel models, the SQLite
// storage classes (typeof: "integer", "real", "text", "blob") its values
// have besides NULL, which a family fact claims of every row of its
// column: Int holds integers; Real (REAL affinity, which converts every
// integer it is given) floating point values; Numeric (NUMERIC affinity,
// which stores 5 as an integer and 5.5 as a real) both; Text strings. A
// family without an entry (Other) claims nothing. Package equiv checks a proof's family facts against a
// database's rows with it (an INTEGER column holding REALs, as Spider's
// soccer_1.Player.height does, breaks family int).
//
// Every family but Other must have an entry (TestEveryFamilyHasStorageClasses):
// a family split in two (REAL and NUMERIC) gets one each.
var storageClasses = map[Family][]string{
	Int:     {"integer"},
	Real:    {"real"},
	Numeric: {"integer", "real"},
	Text:    {"text"},
}

// StorageClasses returns the SQLite storage classes a column of family f
// may hold besides NULL (see storageClasses); nil, false for a family
// that claims none (Other).
func (f Family) StorageClasses() ([]string, bool) {
	c, ok := storageClasses[f]
	return c, ok
}

// FamilyNamed returns the family a certificate's fact names ("int",
// "real", "numeric", "text", "other": Family.String); false for any other name.
func FamilyNamed(name string) (Family, bool) {
	for f := Family(0); ; f++ {
		if f.String() == name {
			return f, true
		}
		if f == 255 {
			return Other, false
		}
	}
}
