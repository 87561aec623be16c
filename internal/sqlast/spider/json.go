package spider

import (
	"bytes"
	"encoding/json"
	"strconv"
)

// MarshalJSON writes the structure in the shape json.dumps gives the
// official dict (tuples as arrays): {"except", "from": {"conds",
// "table_units"}, "groupBy", "having", "intersect", "limit", "orderBy",
// "select", "union", "where"} with keys sorted, col_unit [agg_id, col_id,
// isDistinct], val_unit [unit_op, col_unit1, col_unit2], cond_unit
// [not_op, op_id, val_unit, val1, val2], table_unit ["table_unit", id] or
// ["sql", {...}], orderBy [] or [dir, [val_unit...]], limit null or 1,
// DISTINCT flags false, true or null, numbers as JSON numbers, strings
// with their quotes.
func (sql *SQL) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	writeSQL(&b, sql)
	return b.Bytes(), nil
}

func writeSQL(b *bytes.Buffer, sql *SQL) {
	if sql == nil {
		b.WriteString("null")
		return
	}
	b.WriteString(`{"except":`)
	writeSQL(b, sql.Except)
	b.WriteString(`,"from":{"conds":`)
	writeCond(b, sql.From.Conds)
	b.WriteString(`,"table_units":[`)
	for i, u := range sql.From.TableUnits {
		if i > 0 {
			b.WriteByte(',')
		}
		if u.SQL != nil {
			b.WriteString(`["sql",`)
			writeSQL(b, u.SQL)
			b.WriteByte(']')
		} else {
			b.WriteString(`["table_unit",`)
			writeStr(b, u.Table)
			b.WriteByte(']')
		}
	}
	b.WriteString(`]},"groupBy":[`)
	for i, c := range sql.GroupBy {
		if i > 0 {
			b.WriteByte(',')
		}
		writeColUnit(b, &c)
	}
	b.WriteString(`],"having":`)
	writeCond(b, sql.Having)
	b.WriteString(`,"intersect":`)
	writeSQL(b, sql.Intersect)
	b.WriteString(`,"limit":`)
	if sql.HasLimit {
		b.WriteString("1")
	} else {
		b.WriteString("null")
	}
	b.WriteString(`,"orderBy":`)
	if sql.OrderBy == nil {
		b.WriteString("[]")
	} else {
		b.WriteByte('[')
		writeStr(b, sql.OrderBy.Dir)
		b.WriteString(",[")
		for i, v := range sql.OrderBy.Items {
			if i > 0 {
				b.WriteByte(',')
			}
			writeValUnit(b, v)
		}
		b.WriteString("]]")
	}
	b.WriteString(`,"select":[`)
	writeFlag(b, sql.Select.Distinct)
	b.WriteString(",[")
	for i, it := range sql.Select.Items {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString("[" + strconv.Itoa(int(it.Agg)) + ",")
		writeValUnit(b, it.Val)
		b.WriteByte(']')
	}
	b.WriteString(`]],"union":`)
	writeSQL(b, sql.Union)
	b.WriteString(`,"where":`)
	writeCond(b, sql.Where)
	b.WriteByte('}')
}

func writeStr(b *bytes.Buffer, s string) {
	j, _ := json.Marshal(s)
	b.Write(j)
}

func writeFlag(b *bytes.Buffer, f Flag) {
	switch f {
	case True:
		b.WriteString("true")
	case False:
		b.WriteString("false")
	default:
		b.WriteString("null")
	}
}

func writeColUnit(b *bytes.Buffer, c *ColUnit) {
	if c == nil {
		b.WriteString("null")
		return
	}
	b.WriteString("[" + strconv.Itoa(int(c.Agg)) + ",")
	writeStr(b, c.Col)
	b.WriteByte(',')
	writeFlag(b, c.Distinct)
	b.WriteByte(']')
}

func writeValUnit(b *bytes.Buffer, v ValUnit) {
	b.WriteString("[" + strconv.Itoa(int(v.Op)) + ",")
	writeColUnit(b, &v.Col1)
	b.WriteByte(',')
	writeColUnit(b, v.Col2)
	b.WriteByte(']')
}

func writeValue(b *bytes.Buffer, v Value) {
	switch v.Kind {
	case ValNumber:
		j, err := json.Marshal(v.Num)
		if err != nil { // NaN and infinities, which Python writes bare
			b.WriteString(strconv.Quote(strconv.FormatFloat(v.Num, 'g', -1, 64)))
			return
		}
		b.Write(j)
	case ValString:
		writeStr(b, v.Str)
	case ValCol:
		writeColUnit(b, &v.Col)
	case ValSQL:
		writeSQL(b, v.SQL)
	default:
		b.WriteString("null")
	}
}

func writeCond(b *bytes.Buffer, c Condition) {
	b.WriteByte('[')
	for i, it := range c {
		if i > 0 {
			b.WriteByte(',')
		}
		if it.Unit == nil {
			writeStr(b, it.Conj)
			continue
		}
		u := it.Unit
		b.WriteByte('[')
		if u.Not {
			b.WriteString("true,")
		} else {
			b.WriteString("false,")
		}
		b.WriteString(strconv.Itoa(int(u.Op)) + ",")
		writeValUnit(b, u.Val)
		b.WriteByte(',')
		writeValue(b, u.Val1)
		b.WriteByte(',')
		writeValue(b, u.Val2)
		b.WriteByte(']')
	}
	b.WriteByte(']')
}
