// Package strictjson decodes the JSON that users hand to sqljudge (pairs,
// benchmark and prediction files, label files, serve's request bodies)
// strictly, with github.com/go-json-experiment/json (the proposed
// encoding/json/v2) in its default mode: object keys match struct field
// names exactly (encoding/json also takes "Q1" for "q1"), a key given twice
// in one object is an error (encoding/json keeps the last silently), and a
// string holding invalid UTF-8 is an error (encoding/json replaces the bytes
// with U+FFFD, silently changing ids). Errors say what was expected in
// words, without byte offsets; Line turns an error's offset into the line
// of the input it was found on.
package strictjson

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"

	json "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// Error is a decoding error: Msg says what was found and what was
// expected; Offset is the byte offset in the input after which it was
// found (0 when unknown).
type Error struct {
	Offset int64
	Msg    string
	Err    error // the decoder's error
}

// Error returns Msg.
func (e *Error) Error() string { return e.Msg }

// Unwrap returns the decoder's error.
func (e *Error) Unwrap() error { return e.Err }

// Unmarshal decodes data, one JSON value and nothing after it but white
// space, into v (a pointer, as for encoding/json; struct tags are read as
// encoding/json reads them, and a type's UnmarshalJSON method is called).
// Keys without a field in v are skipped, but one that names a field in
// another case ("ID" for "id") is an error. Errors are *Error.
func Unmarshal(data []byte, v any) error {
	if err := describe(json.Unmarshal(data, v)); err != nil {
		return err
	}
	return checkCase(data, reflect.TypeOf(v))
}

// UnmarshalKnown is Unmarshal that also refuses an object key for which v
// has no field ("unknown key").
func UnmarshalKnown(data []byte, v any) error {
	return describe(json.Unmarshal(data, v, json.RejectUnknownMembers(true)))
}

// NewDecoder returns a strict streaming decoder of r (duplicate keys and
// invalid UTF-8 are errors); read it with its ReadToken, PeekKind and
// SkipValue, and decode values with Decode.
func NewDecoder(r io.Reader) *jsontext.Decoder {
	return jsontext.NewDecoder(r)
}

// Decode decodes the next value of dec into v, as Unmarshal does; the
// offset of an error in the value is from the value's start.
func Decode(dec *jsontext.Decoder, v any) error {
	val, err := dec.ReadValue()
	if err != nil {
		return Describe(err)
	}
	return Unmarshal(val, v)
}

// Describe turns an error of the decoder (or of a jsontext.Decoder's
// methods) into an *Error; I/O errors and io.EOF, io.ErrUnexpectedEOF are
// returned as they are, nil as nil.
func Describe(err error) error {
	if err == nil || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return err
	}
	var se *json.SemanticError
	var ye *jsontext.SyntacticError
	switch {
	case errors.As(err, &ye):
		return &Error{Offset: ye.ByteOffset, Msg: syntactic(ye), Err: err}
	case errors.As(err, &se):
		return &Error{Offset: se.ByteOffset, Msg: semantic(se), Err: err}
	}
	return err
}

// describe is Describe for a whole input, where io.ErrUnexpectedEOF means
// the value is cut short.
func describe(err error) error {
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return &Error{Msg: "the JSON value ends too early (unclosed { or [ or string)", Err: err}
	}
	return Describe(err)
}

func syntactic(e *jsontext.SyntacticError) string {
	if errors.Is(e.Err, jsontext.ErrDuplicateName) {
		name := e.JSONPointer.LastToken()
		return fmt.Sprintf("key %q given twice%s: expected each key once", name, within(e.JSONPointer.Parent()))
	}
	msg := "invalid JSON"
	if e.Err != nil {
		msg = e.Err.Error()
	}
	if strings.Contains(msg, "invalid UTF-8") {
		return fmt.Sprintf("invalid UTF-8 in a string%s: expected UTF-8 text", within(e.JSONPointer))
	}
	return "invalid JSON" + within(e.JSONPointer) + ": " + msg
}

func semantic(e *json.SemanticError) string {
	if errors.Is(e.Err, json.ErrUnknownName) {
		return fmt.Sprintf("unknown key %q%s (keys are case-sensitive)", e.JSONPointer.LastToken(), within(e.JSONPointer.Parent()))
	}
	if e.Err != nil {
		return at(e.JSONPointer) + e.Err.Error()
	}
	if e.JSONKind != 0 && e.GoType != nil {
		return fmt.Sprintf("%sexpected %s, found %s", at(e.JSONPointer), goKind(e.GoType), jsonKind(e.JSONKind))
	}
	return "cannot decode JSON" + within(e.JSONPointer)
}

// at names a position as the start of a message (`"items[3].db_id": `),
// or "" at the top.
func at(p jsontext.Pointer) string {
	if p == "" {
		return ""
	}
	return strings.TrimPrefix(within(p), " in ") + ": "
}

// within names a position in the value: ` in "items[3].db_id"`, or "" at
// the top.
func within(p jsontext.Pointer) string {
	if p == "" {
		return ""
	}
	var b strings.Builder
	for tok := range p.Tokens() {
		if _, err := strconv.Atoi(tok); err == nil {
			b.WriteString("[" + tok + "]")
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(tok)
	}
	return " in " + strconv.Quote(b.String())
}

func goKind(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "a list"
	case reflect.Struct, reflect.Map:
		return "an object"
	}
	return t.String()
}

func jsonKind(k jsontext.Kind) string {
	switch k {
	case 'n':
		return "null"
	case 'f', 't':
		return "true or false"
	case '"':
		return "a string"
	case '0':
		return "a number"
	case '{':
		return "an object"
	case '[':
		return "a list"
	}
	return "JSON " + k.String()
}

// Line returns the 1-based line of data on which err (from Unmarshal or
// UnmarshalKnown of data) was found, or 0 when err carries no offset.
func Line(data []byte, err error) int {
	var e *Error
	if !errors.As(err, &e) || e.Offset <= 0 {
		return 0
	}
	return 1 + bytes.Count(data[:min(int(e.Offset), len(data))], []byte("\n"))
}

// bom is the UTF-8 byte order mark that Windows editors put at the start
// of a text file.
const bom = "\ufeff"

// TrimBOM returns data without a leading UTF-8 byte order mark.
func TrimBOM(data []byte) []byte { return bytes.TrimPrefix(data, []byte(bom)) }

// MaxLine is the longest line Lines reads, in bytes (64 MiB).
const MaxLine = 64 << 20

// LineError is a line that Lines cannot read: Msg says why; Error is
// "Name:Line: Msg".
type LineError struct {
	Name string
	Line int
	Msg  string
}

// Error returns "Name:Line: Msg".
func (e *LineError) Error() string { return fmt.Sprintf("%s:%d: %s", e.Name, e.Line, e.Msg) }

// Lines calls fn with each line of r that is not blank, numbered from 1
// and trimmed of surrounding white space (a "\r\n" ending included); a
// UTF-8 byte order mark at the start of r is skipped. It stops at fn's
// first error and returns it as it is. A line longer than MaxLine is a
// *LineError "name:N: line longer than 64 MiB, the longest line read: …";
// a read error is "name: error".
func Lines(name string, r io.Reader, fn func(n int, line []byte) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), MaxLine)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Bytes()
		if n == 1 {
			line = TrimBOM(line)
		}
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		if err := fn(n, line); err != nil {
			return err
		}
	}
	if err := sc.Err(); errors.Is(err, bufio.ErrTooLong) {
		return &LineError{Name: name, Line: n + 1, Msg: fmt.Sprintf("line longer than %d MiB, the longest line read: expected one JSON value per line", MaxLine>>20)}
	} else if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

// DecodeLines decodes each line of the file at path that is not blank as
// one T (UnmarshalKnown) and returns them in file order; an error names
// the file and the line ("pairs.jsonl:3: …"), or is the open or read
// error. A line may hold up to 16 MiB. It reads committed data sets and
// test fixtures whole; user input goes through readers that bound and
// report it item by item (equiv.ReadPairs, eval's readers).
func DecodeLines[T any](path string) ([]T, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []T
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for n := 1; sc.Scan(); n++ {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		var v T
		if err := UnmarshalKnown(sc.Bytes(), &v); err != nil {
			return out, fmt.Errorf("%s:%d: %w", filepath.Base(path), n, err)
		}
		out = append(out, v)
	}
	if err := sc.Err(); err != nil {
		return out, fmt.Errorf("%s: %w", filepath.Base(path), err)
	}
	return out, nil
}
