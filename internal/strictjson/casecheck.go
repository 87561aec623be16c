package strictjson

import (
	"bytes"
	"encoding"
	stdjson "encoding/json"
	"fmt"
	"reflect"
	"strings"

	json "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// checkCase walks data (valid JSON) beside the Go type t it was decoded
// into and refuses an object key that names no field of its struct but one
// in another case ("ID" beside a field "id"): the decoder skipped it as
// unknown, where encoding/json took it for the field. Values decoded by a
// type's own UnmarshalJSON are not walked.
func checkCase(data []byte, t reflect.Type) error {
	dec := jsontext.NewDecoder(bytes.NewReader(data))
	return walk(dec, t)
}

var (
	v1Unmarshaler   = reflect.TypeFor[stdjson.Unmarshaler]()
	v2Unmarshaler   = reflect.TypeFor[json.Unmarshaler]()
	v2FromUnmarshal = reflect.TypeFor[json.UnmarshalerFrom]()
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// custom reports whether t decodes itself.
func custom(t reflect.Type) bool {
	p := reflect.PointerTo(t)
	for _, i := range []reflect.Type{v1Unmarshaler, v2Unmarshaler, v2FromUnmarshal, textUnmarshaler} {
		if t.Implements(i) || p.Implements(i) {
			return true
		}
	}
	return false
}

func walk(dec *jsontext.Decoder, t reflect.Type) error {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil || custom(t) {
		return dec.SkipValue()
	}
	switch dec.PeekKind() {
	case '{':
		return walkObject(dec, t)
	case '[':
		if t.Kind() != reflect.Slice && t.Kind() != reflect.Array {
			return dec.SkipValue()
		}
		if _, err := dec.ReadToken(); err != nil {
			return err
		}
		for dec.PeekKind() != ']' {
			if err := walk(dec, t.Elem()); err != nil {
				return err
			}
		}
		_, err := dec.ReadToken()
		return err
	}
	return dec.SkipValue()
}

func walkObject(dec *jsontext.Decoder, t reflect.Type) error {
	var fields map[string]reflect.Type
	switch t.Kind() {
	case reflect.Struct:
		fields = map[string]reflect.Type{}
		fieldsOf(t, fields)
	case reflect.Map:
	default:
		return dec.SkipValue()
	}
	if _, err := dec.ReadToken(); err != nil {
		return err
	}
	for dec.PeekKind() != '}' {
		tok, err := dec.ReadToken()
		if err != nil {
			return err
		}
		name := tok.String()
		var next reflect.Type
		if fields == nil {
			next = t.Elem()
		} else if f, ok := fields[name]; ok {
			next = f
		} else if want := foldMatch(fields, name); want != "" {
			return &Error{Offset: dec.InputOffset(), Msg: fmt.Sprintf("unknown key %q%s (keys are case-sensitive: expected %q)", name, within(dec.StackPointer().Parent()), want)}
		}
		if err := walk(dec, next); err != nil {
			return err
		}
	}
	_, err := dec.ReadToken()
	return err
}

// foldMatch returns the field name equal to name but for case, or "".
func foldMatch(fields map[string]reflect.Type, name string) string {
	for f := range fields {
		if strings.EqualFold(f, name) {
			return f
		}
	}
	return ""
}

// fieldsOf adds the JSON names of struct t's fields, as encoding/json
// names them (tag name, else the Go name; embedded structs without a name
// inlined; "-" left out), with their types.
func fieldsOf(t reflect.Type, into map[string]reflect.Type) {
	for f := range t.Fields() {
		tag, hasTag := f.Tag.Lookup("json")
		name, _, _ := strings.Cut(tag, ",")
		if tag == "-" {
			continue
		}
		ft := f.Type
		if ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if f.Anonymous && name == "" && ft.Kind() == reflect.Struct && !custom(ft) {
			fieldsOf(ft, into)
			continue
		}
		if !f.IsExported() {
			continue
		}
		if name == "" || !hasTag {
			name = f.Name
		}
		into[name] = f.Type
	}
}
