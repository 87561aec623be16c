package deploytest

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/sqljudge/sqljudge/internal/cli"
	"github.com/sqljudge/sqljudge/internal/shareddata"
)

// object is one Kubernetes object of a manifest, as generic YAML.
type object struct {
	file string
	doc  map[string]any
}

func (o object) kind() string { return str(o.doc["kind"]) }
func (o object) name() string { return str(get(o.doc, "metadata", "name")) }

// readManifests reads every object of deploy/kubernetes/*.yaml.
func readManifests(t *testing.T) []object {
	t.Helper()
	dir := filepath.Join(filepath.Dir(shareddata.Subset(t)), "deploy", "kubernetes")
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no manifests in %s (%v)", dir, err)
	}
	var out []object
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		dec := yaml.NewDecoder(bytes.NewReader(b))
		for {
			var doc map[string]any
			err := dec.Decode(&doc)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			if doc == nil {
				continue
			}
			if str(doc["apiVersion"]) == "" || str(doc["kind"]) == "" || str(get(doc, "metadata", "name")) == "" {
				t.Fatalf("%s: an object without apiVersion, kind or metadata.name", f)
			}
			out = append(out, object{file: filepath.Base(f), doc: doc})
		}
	}
	return out
}

func get(v any, path ...string) any {
	for _, p := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[p]
	}
	return v
}

func str(v any) string { s, _ := v.(string); return s }

func list(v any) []any { l, _ := v.([]any); return l }

var varRef = regexp.MustCompile(`\$\(([A-Za-z_][A-Za-z0-9_]*)\)`)

// TestContainerCommandsParse: every container of a Job or Deployment runs
// /sqljudge with a command that exists and flags its parser accepts, after
// Kubernetes' $(VAR) expansion from the container's own env (each variable
// it uses is defined there).
func TestContainerCommandsParse(t *testing.T) {
	checked := 0
	for _, o := range readManifests(t) {
		if o.kind() != "Job" && o.kind() != "Deployment" {
			continue
		}
		for _, c := range list(get(o.doc, "spec", "template", "spec", "containers")) {
			where := o.file + ": " + o.kind() + "/" + o.name() + " container " + str(get(c, "name"))
			argv := expand(t, where, c)
			if len(argv) < 2 || argv[0] != "/sqljudge" {
				t.Errorf("%s: command %q does not run /sqljudge", where, argv)
				continue
			}
			checkArgs(t, where, argv[1:])
			checked++
		}
	}
	if checked < 3 {
		t.Errorf("checked %d containers; want the eval, merge and serve ones", checked)
	}
	t.Logf("%d container command lines parse with the CLI's flags", checked)
}

// expand returns a container's command and args with $(VAR) replaced by a
// sample value ("0"); a variable missing from its env fails the test.
func expand(t *testing.T, where string, c any) []string {
	t.Helper()
	env := map[string]bool{}
	for _, e := range list(get(c, "env")) {
		env[str(get(e, "name"))] = true
	}
	var argv []string
	for _, a := range append(list(get(c, "command")), list(get(c, "args"))...) {
		s, ok := a.(string)
		if !ok {
			t.Errorf("%s: argument %v is not a string", where, a)
		}
		s = varRef.ReplaceAllStringFunc(s, func(m string) string {
			if name := varRef.FindStringSubmatch(m)[1]; !env[name] {
				t.Errorf("%s: $(%s) is not in the container's env, so Kubernetes leaves it as written", where, name)
			}
			return "0"
		})
		argv = append(argv, s)
	}
	return argv
}

// checkArgs finds the sqljudge command of args and parses its flags and
// positional arguments as the CLI does.
func checkArgs(t *testing.T, where string, args []string) {
	t.Helper()
	root := cli.Command()
	cmd, rest, err := root.Find(args)
	if err != nil || cmd == root {
		t.Errorf("%s: %q is not a sqljudge command (%v)", where, args, err)
		return
	}
	if err := cmd.ParseFlags(rest); err != nil {
		t.Errorf("%s: sqljudge %s: %v", where, cmd.Name(), err)
		return
	}
	if err := cmd.ValidateArgs(cmd.Flags().Args()); err != nil {
		t.Errorf("%s: sqljudge %s: %v", where, cmd.Name(), err)
	}
}

// TestEvalJobShardsAndResumes: the eval Job is Indexed, runs one shard per
// completion index with --resume, and its podFailurePolicy fails the Job
// on exit 2 (bad input) instead of retrying it.
func TestEvalJobShardsAndResumes(t *testing.T) {
	var job object
	for _, o := range readManifests(t) {
		if o.kind() == "Job" && str(get(o.doc, "spec", "completionMode")) == "Indexed" {
			job = o
		}
	}
	if job.doc == nil {
		t.Fatal("no Indexed Job")
	}
	spec := get(job.doc, "spec")
	n, _ := get(spec, "completions").(int)
	if n < 2 {
		t.Errorf("completions %d; want a number of shards", n)
	}
	c := list(get(spec, "template", "spec", "containers"))[0]
	argv := strings.Join(append(toStrings(get(c, "command")), toStrings(get(c, "args"))...), " ")
	for _, want := range []string{" eval ", " --resume", "--shard $(", "/" + strconv.Itoa(n) + " "} {
		if !strings.Contains(argv+" ", want) {
			t.Errorf("eval Job command %q lacks %q", argv, want)
		}
	}
	if !usesCompletionIndex(c, argv) {
		t.Errorf("eval Job's --shard does not come from the completion index: %q", argv)
	}
	if str(get(spec, "template", "spec", "restartPolicy")) != "Never" {
		t.Error("a podFailurePolicy needs restartPolicy Never")
	}
	if !failsOnExit2(spec) {
		t.Error("eval Job: no podFailurePolicy rule FailJob on exit code 2")
	}
}

func toStrings(v any) []string {
	var out []string
	for _, a := range list(v) {
		out = append(out, str(a))
	}
	return out
}

// usesCompletionIndex reports whether the $(VAR) of --shard is the
// completion index: JOB_COMPLETION_INDEX, or a variable from the
// annotation batch.kubernetes.io/job-completion-index.
func usesCompletionIndex(c any, argv string) bool {
	m := regexp.MustCompile(`--shard \$\(([A-Za-z_0-9]+)\)/`).FindStringSubmatch(argv)
	if m == nil {
		return false
	}
	if m[1] == "JOB_COMPLETION_INDEX" {
		return true
	}
	for _, e := range list(get(c, "env")) {
		if str(get(e, "name")) == m[1] {
			return strings.Contains(str(get(e, "valueFrom", "fieldRef", "fieldPath")), "batch.kubernetes.io/job-completion-index")
		}
	}
	return false
}

func failsOnExit2(spec any) bool {
	for _, r := range list(get(spec, "podFailurePolicy", "rules")) {
		vals := list(get(r, "onExitCodes", "values"))
		if str(get(r, "action")) == "FailJob" && str(get(r, "onExitCodes", "operator")) == "In" && slices.Contains(vals, any(2)) {
			return true
		}
	}
	return false
}

// TestVolumeAndSecrets: every Job and Deployment mounts the one
// ReadWriteMany claim the manifests define, the merge Job also fails on
// exit 2, and serve takes its token from a Secret through
// SQLJUDGE_SERVE_TOKEN (never a literal), behind a Service that selects
// its pods.
func TestVolumeAndSecrets(t *testing.T) {
	objs := readManifests(t)
	claims := map[string]bool{}
	for _, o := range objs {
		if o.kind() == "PersistentVolumeClaim" && slices.Contains(list(get(o.doc, "spec", "accessModes")), any("ReadWriteMany")) {
			claims[o.name()] = true
		}
	}
	if len(claims) != 1 {
		t.Fatalf("ReadWriteMany claims %v; want one", claims)
	}
	var deploy, service object
	for _, o := range objs {
		switch o.kind() {
		case "Job", "Deployment":
			for _, v := range list(get(o.doc, "spec", "template", "spec", "volumes")) {
				if cn := str(get(v, "persistentVolumeClaim", "claimName")); cn != "" && !claims[cn] {
					t.Errorf("%s/%s mounts claim %q, which no manifest defines as ReadWriteMany", o.kind(), o.name(), cn)
				}
			}
			if o.kind() == "Job" && !failsOnExit2(get(o.doc, "spec")) {
				t.Errorf("Job %s retries exit 2", o.name())
			}
			if o.kind() == "Deployment" {
				deploy = o
			}
		case "Service":
			service = o
		}
	}
	if deploy.doc == nil || service.doc == nil {
		t.Fatal("no Deployment and Service for serve")
	}
	c := list(get(deploy.doc, "spec", "template", "spec", "containers"))[0]
	token := false
	for _, e := range list(get(c, "env")) {
		if str(get(e, "name")) == "SQLJUDGE_SERVE_TOKEN" {
			token = str(get(e, "valueFrom", "secretKeyRef", "name")) != "" && get(e, "value") == nil
		}
	}
	if !token {
		t.Error("serve: SQLJUDGE_SERVE_TOKEN does not come from a Secret")
	}
	labels, _ := get(deploy.doc, "spec", "template", "metadata", "labels").(map[string]any)
	sel, _ := get(service.doc, "spec", "selector").(map[string]any)
	for k, v := range sel {
		if labels[k] != v {
			t.Errorf("Service selector %s=%v does not match the serve pods' labels %v", k, v, labels)
		}
	}
}
