package serve

import (
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/sqljudge/sqljudge/internal/strictjson"
)

// Defaults of the request bounds (Config.MaxBody, Config.MaxBatch).
const (
	// DefaultMaxBody is the largest request body read, in bytes (64 MiB):
	// a larger one is answered with HTTP 413.
	DefaultMaxBody = 64 << 20
	// DefaultMaxBatch is the most items (or OpenRLHF queries) one request
	// may hold: more is answered with HTTP 413.
	DefaultMaxBatch = 10_000
)

// requestError is a request the server refuses: its HTTP status and a
// message naming the field.
type requestError struct {
	code int
	msg  string
}

func (e *requestError) Error() string { return e.msg }

func badRequest(format string, args ...any) *requestError {
	return &requestError{http.StatusBadRequest, fmt.Sprintf(format, args...)}
}

// bodyDecoder reads a request body as a stream of JSON tokens, one array
// element at a time, so that memory holds the decoded values and not the
// body's text as well; the body is cut at maxBody bytes and arrays at
// maxBatch elements (both HTTP 413). It decodes strictly
// (internal/strictjson): a key given twice in an object, a key naming a
// field in another case and invalid UTF-8 are HTTP 400.
type bodyDecoder struct {
	dec      *jsontext.Decoder
	maxBody  int64
	maxBatch int
}

func (s *Server) newBodyDecoder(w http.ResponseWriter, r *http.Request) *bodyDecoder {
	body := http.MaxBytesReader(w, io.NopCloser(s.pace(w, r.Body)), s.cfg.MaxBody)
	return &bodyDecoder{dec: strictjson.NewDecoder(body), maxBody: s.cfg.MaxBody, maxBatch: s.cfg.MaxBatch}
}

// fail turns a decoding error into the request's refusal.
func (d *bodyDecoder) fail(err error) *requestError {
	var re *requestError
	var tooBig *http.MaxBytesError
	var slow *slowBodyError
	err = strictjson.Describe(err)
	switch {
	case errors.As(err, &re):
		return re
	case errors.As(err, &slow):
		return &requestError{http.StatusRequestTimeout, slow.Error()}
	case errors.As(err, &tooBig):
		return &requestError{http.StatusRequestEntityTooLarge, fmt.Sprintf("request body larger than %d bytes (--max-body)", d.maxBody)}
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return badRequest("malformed JSON body: it ends too early")
	}
	return badRequest("malformed JSON body: %v", err)
}

// object reads a JSON object, calling field with each key; field decodes
// the value (d.value or d.array) or skips it.
func (d *bodyDecoder) object(field func(key string) error) error {
	if err := d.delim('{'); err != nil {
		return err
	}
	for d.dec.PeekKind() != '}' {
		t, err := d.dec.ReadToken()
		if err != nil {
			return err
		}
		if err := field(t.String()); err != nil {
			return err
		}
	}
	if _, err := d.dec.ReadToken(); err != nil {
		return err
	}
	if _, err := d.dec.ReadToken(); err != io.EOF {
		return badRequest("malformed JSON body: more than one JSON value")
	}
	return nil
}

// value decodes the next value into v; field names it in errors.
func (d *bodyDecoder) value(field string, v any) error {
	err := strictjson.Decode(d.dec, v)
	var se *strictjson.Error
	var tooBig *http.MaxBytesError
	if errors.As(err, &se) && !errors.As(err, &tooBig) {
		return badRequest("%s: %v", field, err)
	}
	return err
}

// skip reads and drops the next value (an unknown field).
func (d *bodyDecoder) skip() error {
	return d.dec.SkipValue()
}

// array reads a JSON array (or null), calling elem for each element with
// its index; elem decodes it. More than maxBatch elements is HTTP 413.
func (d *bodyDecoder) array(field string, elem func(i int) error) error {
	t, err := d.dec.ReadToken()
	if err != nil {
		return err
	}
	if t.Kind() == 'n' {
		return nil
	}
	if t.Kind() != '[' {
		return badRequest("%q must be a list", field)
	}
	for i := 0; d.dec.PeekKind() != ']'; i++ {
		if i == d.maxBatch {
			return &requestError{http.StatusRequestEntityTooLarge, fmt.Sprintf("%q holds more than %d entries (--max-batch): send smaller batches", field, d.maxBatch)}
		}
		if err := elem(i); err != nil {
			return err
		}
	}
	_, err = d.dec.ReadToken()
	return err
}

func (d *bodyDecoder) delim(want jsontext.Kind) error {
	t, err := d.dec.ReadToken()
	if err != nil {
		return err
	}
	if t.Kind() != want {
		return badRequest("malformed JSON body: want a JSON object")
	}
	return nil
}

// decodeGrade reads the body of POST /v1/grade.
func (s *Server) decodeGrade(w http.ResponseWriter, r *http.Request) (GradeRequest, *requestError) {
	var req GradeRequest
	d := s.newBodyDecoder(w, r)
	err := d.object(func(key string) error {
		switch key {
		case "preset":
			return d.value("preset", &req.Preset)
		case "metric":
			return d.value("metric", &req.Metric)
		case "items":
			return d.array("items", func(i int) error {
				req.Items = append(req.Items, GradeItem{})
				return d.value(fmt.Sprintf("items[%d]", i), &req.Items[i])
			})
		}
		return d.skip()
	})
	if err != nil {
		return req, d.fail(err)
	}
	return req, nil
}

// decodeOpenRLHF reads the body of POST /v1/openrlhf.
func (s *Server) decodeOpenRLHF(w http.ResponseWriter, r *http.Request) (OpenRLHFRequest, *requestError) {
	var req OpenRLHFRequest
	d := s.newBodyDecoder(w, r)
	err := d.object(func(key string) error {
		switch key {
		case "query":
			return d.array(key, func(i int) error {
				req.Query = append(req.Query, "")
				return d.value(fmt.Sprintf("query[%d]", i), &req.Query[i])
			})
		case "prompts":
			return d.array(key, func(i int) error {
				req.Prompts = append(req.Prompts, "")
				return d.value(fmt.Sprintf("prompts[%d]", i), &req.Prompts[i])
			})
		case "labels":
			return d.array(key, func(i int) error {
				req.Labels = append(req.Labels, nil)
				return d.value(fmt.Sprintf("labels[%d]", i), &req.Labels[i])
			})
		}
		return d.skip()
	})
	if err != nil {
		return req, d.fail(err)
	}
	return req, nil
}
