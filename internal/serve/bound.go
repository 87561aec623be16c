package serve

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/sqljudge/sqljudge/internal/metric"
)

// DefaultMaxResponse bounds the verdict details of one response, in bytes
// (Config.MaxResponse, --max-response): as much as a request's body.
const DefaultMaxResponse = 64 << 20

// responseShare is the bytes of JSON the verdict details of each of n
// items may take: an equal share of total, so that a response's details
// take at most total together (duplicates included) whatever order the
// items finish in, and the same request gets the same cuts.
func responseShare(total int64, n int) int {
	return int(total / int64(max(n, 1)))
}

// boundVerdict returns metric name's verdict v as a result keeps it under
// verdicts, within share bytes of JSON: whole when it fits; else without
// its largest detail fields (a witness first: a record's results and SQL
// are already cut, see equiv.Result and equiv.MaxWitnessSQL), and cut
// says what was left out and why ("" when nothing was); without the
// verdict at all (nil) when even its fixed fields do not fit.
func boundVerdict(name string, v metric.Verdict, share int) (map[string]metric.Verdict, string) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Sprintf("verdicts.%s left out: %v", name, err)
	}
	if len(b) <= share {
		return map[string]metric.Verdict{name: v}, ""
	}
	var raw metric.Verdict
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, fmt.Sprintf("verdicts.%s left out: %v", name, err)
	}
	fields, _ := raw.Details.(metric.RawFields)
	var left []string
	for size := len(b); size > share && len(fields) > 0; {
		k := largest(fields)
		size -= len(fields[k]) + len(k) + 4 // ,"k":
		left = append(left, fmt.Sprintf("verdicts.%s.%s (%d bytes of JSON)", name, k, len(fields[k])))
		delete(fields, k)
	}
	why := fmt.Sprintf("over this item's share of the response (%d bytes: --max-response divided by the request's items)", share)
	if b, _ = json.Marshal(raw); len(b) > share {
		return nil, fmt.Sprintf("verdicts.%s (%d bytes of JSON) left out: %s", name, len(b), why)
	}
	if len(fields) == 0 {
		raw.Details = nil
	}
	return map[string]metric.Verdict{name: raw}, strings.Join(left, ", ") + " left out: " + why
}

// largest returns the key of the longest value of fields (the first by
// name among equals).
func largest(fields metric.RawFields) string {
	keys := slices.Sorted(maps.Keys(fields))
	return slices.MaxFunc(keys, func(a, b string) int {
		// MaxFunc keeps the first of equals when cmp says 0.
		return cmp.Compare(len(fields[a]), len(fields[b]))
	})
}
