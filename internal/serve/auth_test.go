package serve

import (
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
)

// TestTokenAndContentType: with a token, /v1/grade and /v1/openrlhf
// answer 401 without it or with a wrong one, /healthz answers anyway; a
// body not declared as JSON is 415, with or without a token.
func TestTokenAndContentType(t *testing.T) {
	_, eng, ts := newTestServer(t, Config{Token: "s3cret-token"})
	body := `{"items": [{"db_id": "concert_singer", "gold": "SELECT 1", "pred": "SELECT 1"}]}`
	send := func(path, ctype, auth string) (int, string) {
		req, err := http.NewRequest("POST", ts.URL+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		if ctype != "" {
			req.Header.Set("Content-Type", ctype)
		}
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	for _, c := range []struct {
		path, ctype, auth string
		want              int
	}{
		{"/v1/grade", "application/json", "", 401},
		{"/v1/grade", "application/json", "Bearer wrong", 401},
		{"/v1/grade", "application/json", "Bearer s3cret-token-and-more", 401},
		{"/v1/grade", "application/json", "Basic s3cret-token", 401},
		{"/v1/openrlhf", "application/json", "", 401},
		{"/v1/grade", "text/plain", "Bearer s3cret-token", 415},
		{"/v1/grade", "", "Bearer s3cret-token", 415},
		{"/v1/grade", "application/x-www-form-urlencoded", "Bearer s3cret-token", 415},
		{"/v1/grade", "application/json; charset=utf-8", "Bearer s3cret-token", 200},
		{"/v1/grade", "application/json", "bearer s3cret-token", 200},
	} {
		if code, out := send(c.path, c.ctype, c.auth); code != c.want {
			t.Errorf("%s %q %q: HTTP %d %s; want %d", c.path, c.ctype, c.auth, code, out, c.want)
		}
	}
	if n := eng.total(); n != 3 {
		t.Errorf("%d queries ran, want 3 (the gold once, the prediction of each of the two accepted requests)", n)
	}
	resp, err := http.Get(ts.URL + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("/healthz without a token: HTTP %d", resp.StatusCode)
	}
	_, _, open := newTestServer(t, Config{})
	if code, out := post(t, open.URL+"/v1/grade", body); code != 200 {
		t.Errorf("no token configured: HTTP %d %s", code, out)
	}
	resp, err = http.Post(open.URL+"/v1/grade", "text/plain", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 415 {
		t.Errorf("text/plain without a token configured: HTTP %d", resp.StatusCode)
	}
}

// TestExposure: a listener on every interface (or any other host address)
// without a token is warned about; loopback, or a token, is not.
func TestExposure(t *testing.T) {
	for _, c := range []struct {
		ip    string
		token string
		warn  bool
	}{
		{"0.0.0.0", "", true}, {"::", "", true}, {"10.1.2.3", "", true},
		{"127.0.0.1", "", false}, {"::1", "", false}, {"0.0.0.0", "t", false},
	} {
		got := Exposure(&net.TCPAddr{IP: net.ParseIP(c.ip), Port: 8080}, c.token)
		if (got != "") != c.warn || (c.warn && !strings.Contains(got, "SQLJUDGE_SERVE_TOKEN")) {
			t.Errorf("%s token %q: %q", c.ip, c.token, got)
		}
	}
}
