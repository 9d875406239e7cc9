package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bsadapter/bsadapter/internal/bridge/bridgetest"
)

// The native round trip through the command: a dropped native field
// fails; roundTrip.ignore in bsadapter.json and --ignore cover it, and
// --verbose says why.
func TestCheckFixturesNativeIgnores(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "fixtures"), 0o755)
	os.WriteFile(filepath.Join(dir, "fixtures", "a.jsonl"), []byte(`{"uid":"a","from":"human","blocks":[{"t":"txt","body":"hi"}],"meta":{"k":1}}`+"\n"), 0o644)
	argv := bridgetest.NodeBridge(t, "--fault=dropmeta")
	writeCfg := func(extra string) {
		cmd, _ := json.Marshal(argv)
		os.WriteFile(filepath.Join(dir, "bsadapter.json"), []byte(`{"name":"chatlet","bridge":{"command":`+string(cmd)+`},"fixtures":"fixtures"`+extra+`}`), 0o644)
	}
	t.Chdir(dir)
	run := func(args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		code := Main(append([]string{"check-fixtures"}, args...), Stdio{In: strings.NewReader(""), Out: &out, Err: &errb,
			Env: func(string) (string, bool) { return "", false }})
		return code, out.String(), errb.String()
	}

	writeCfg("")
	code, out, _ := run()
	if code != ExitFailed || !strings.Contains(out, "the native round trip (fromSdk, toSdk) changed the message") || !strings.Contains(out, "/meta removed") {
		t.Errorf("exit %d:\n%s", code, out)
	}
	code, out, _ = run("--no-native-round-trip")
	if code != 0 {
		t.Errorf("--no-native-round-trip: exit %d:\n%s", code, out)
	}
	code, out, _ = run("-v", "--ignore", "/meta=kept elsewhere")
	if code != 0 || !strings.Contains(out, "ignored /meta: removed") || !strings.Contains(out, "kept elsewhere") {
		t.Errorf("--ignore: exit %d:\n%s", code, out)
	}
	code, _, errs := run("--ignore", "meta")
	if code != ExitUsage || !strings.Contains(errs, `starts with "/"`) {
		t.Errorf("bad --ignore: exit %d: %s", code, errs)
	}

	writeCfg(`,"roundTrip":{"ignore":[{"path":"/meta","reason":"chatlet does not store meta"}]}`)
	code, out, _ = run("-v")
	if code != 0 || !strings.Contains(out, "(/meta in bsadapter.json): chatlet does not store meta") {
		t.Errorf("roundTrip.ignore: exit %d:\n%s", code, out)
	}
}

// --generate through the command: the seed is printed and replays the
// same run; a dropped part type fails with a shrunk message.
func TestCheckFixturesGenerate(t *testing.T) {
	t.Chdir(t.TempDir())
	run := func(args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		code := Main(append([]string{"check-fixtures"}, args...), Stdio{In: strings.NewReader(""), Out: &out, Err: &errb,
			Env: func(string) (string, bool) { return "", false }})
		return code, out.String(), errb.String()
	}
	node := strings.Join(bridgetest.NodeBridge(t), " ")
	code, out, errs := run("--bridge", node, "--generate", "60", "--float64")
	if code != 0 || !strings.Contains(out, "60 messages generated (seed ") || !strings.Contains(out, " --float64)") {
		t.Fatalf("exit %d:\n%s\n%s", code, out, errs)
	}
	code, out, _ = run("--bridge", node+" --fault=dropstep", "--generate", "60", "--float64", "--seed", "77", "--format", "json")
	var rep struct {
		Generated struct{ Seed uint64 }
		Results   []struct {
			Status string
			Input  string
			Shrunk bool
		}
	}
	if code != ExitFailed || json.Unmarshal([]byte(out), &rep) != nil || rep.Generated.Seed != 77 {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	first := ""
	for _, r := range rep.Results {
		if r.Shrunk {
			first = r.Input
			break
		}
	}
	if !strings.Contains(first, `"type":"step"`) {
		t.Errorf("no shrunk step message: %q", first)
	}
	// The same seed, the same run.
	_, again, _ := run("--bridge", node+" --fault=dropstep", "--generate", "60", "--float64", "--seed", "77", "--format", "json")
	strip := func(s string) string {
		var m map[string]any
		json.Unmarshal([]byte(s), &m)
		delete(m, "timing")
		b, _ := json.Marshal(m)
		return string(b)
	}
	if strip(again) != strip(out) || len(strip(out)) < 100 {
		t.Error("--seed 77 twice gave two reports")
	}
	if code, _, errs := run("--seed", "3"); code != ExitUsage || !strings.Contains(errs, "--generate") {
		t.Errorf("--seed alone: exit %d %s", code, errs)
	}
}
