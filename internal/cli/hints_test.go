//go:build unix

package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// failingWriter refuses every write, as /dev/full does.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, syscall.ENOSPC }

// Output that cannot be written is an environment error that says so,
// whatever the command made of the write error: never a usage hint.
func TestStdoutWriteErrorIsNamed(t *testing.T) {
	for _, args := range [][]string{
		{"conform", "--list"},
		{"version"},
		{"conform", "--store", "memory", "--suite", "registry"},
	} {
		var errb bytes.Buffer
		code := Main(args, Stdio{In: strings.NewReader(""), Out: failingWriter{}, Err: &errb})
		got := errb.String()
		if code != ExitUsage || !strings.Contains(got, "bsadapter: cannot write the output to stdout: no space left on device\n") ||
			!strings.Contains(got, "hint: stdout goes to a file, device or pipe that refused the write") || strings.Contains(got, "--help") {
			t.Errorf("%q: exit %d, stderr:\n%s", args, code, got)
		}
		if n := strings.Count(got, "bsadapter:"); n != 1 {
			t.Errorf("%q: %d errors printed:\n%s", args, n, got)
		}
	}
}

// shBridge writes a bridge in sh that answers initialize (request id 1)
// with capabilities caps and every later request with "method not
// found", and returns its --bridge value.
func shBridge(t *testing.T, caps string) string {
	t.Helper()
	script := `read -r line
printf '%s\n' '{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":2,"adapter":{"name":"liar","format":"liar-v1"},"capabilities":` + caps + `}}'
while read -r line; do
  id=$(printf '%s' "$line" | sed 's/^{"jsonrpc":"2.0","id":\([0-9]*\).*/\1/')
  printf '{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"method not found"}}\n' "$id"
done
`
	path := filepath.Join(t.TempDir(), "bridge.sh")
	if err := os.WriteFile(path, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	return "sh " + path
}

// Each way a bridge fails to serve gets the hint that fits it: one that
// answered initialize is not told it must answer initialize, one that
// never ran is not said to have written nothing to stderr.
func TestBridgeFailureHints(t *testing.T) {
	dir := t.TempDir()
	fixture := filepath.Join(dir, "m.json")
	if err := os.WriteFile(fixture, []byte(`{"uid":"m"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name     string
		args     []string
		msg      string
		hint     string
		notHints []string
	}{
		{
			name: "declares an identity it does not serve",
			args: []string{"conform", "--suite", "streams", "--bridge", shBridge(t, `{"streamStore":true,"streamStore.identity":true}`)},
			msg:  "answered initialize, then failed: streamStore.identity: bridge error -32601: method not found",
			hint: "hint: the bridge answered initialize, but a capability it declared there does not hold",
		},
		{
			name: "declares an expiry model that does not exist",
			args: []string{"conform", "--suite", "streams", "--bridge", shBridge(t, `{"streamStore":true,"streamStore.expiry":"sometimes"}`)},
			msg:  `declares capabilities.streamStore.expiry "sometimes"`,
			hint: "hint: the bridge answered initialize, but a capability it declared there does not hold",
		},
		{
			name: "capabilities of the wrong type",
			args: []string{"check-fixtures", "--bridge", shBridge(t, `{"converter":"yes"}`), fixture},
			msg:  "the initialize answer's capabilities do not decode",
			hint: "hint: the bridge did not answer initialize as the bridge protocol asks (see its handshake section)",
		},
		{
			name:     "an empty first word",
			args:     []string{"check-fixtures", "--bridge", "'' bridge.mjs", fixture},
			msg:      "bsadapter: the bridge command '' bridge.mjs names no program: its first word is empty\n",
			hint:     "hint: the bridge command comes from --bridge: its first word must name a program that runs in",
			notHints: []string{"wrote nothing to stderr"},
		},
		{
			name:     "a program that does not exist",
			args:     []string{"conform", "--bridge", "bsadapter-no-such-bridge"},
			msg:      `executable file not found in $PATH` + "\n",
			hint:     "hint: the bridge command comes from --bridge: its first word must name a program",
			notHints: []string{"wrote nothing to stderr"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			app := Stdio{In: strings.NewReader(""), Out: &out, Err: &errb, Env: func(string) (string, bool) { return "", false }}
			code := Main(tc.args, app)
			got := errb.String()
			if code != ExitUsage || !strings.Contains(got, tc.msg) || !strings.Contains(got, tc.hint) {
				t.Errorf("exit %d, stderr:\n%s\nwant %q and %q", code, got, tc.msg, tc.hint)
			}
			for _, not := range append(tc.notHints, "must answer initialize") {
				if strings.Contains(got, not) {
					t.Errorf("stderr says %q:\n%s", not, got)
				}
			}
		})
	}
}

// new names the file it could not make and what the target is.
func TestNewTargetHints(t *testing.T) {
	for _, tc := range []struct{ dir, msg, hint string }{
		{"/proc/self", "bsadapter: cannot create /proc/self/.gitignore: no such file or directory (/proc/self does not take new files", "hint: choose another --dir: an ordinary folder you can create files in\n"},
		{"/dev/null", "bsadapter: /dev/null is a character device, not a folder\n", "hint: choose another --dir\n"},
	} {
		if fi, err := os.Stat(tc.dir); err != nil || (tc.dir == "/proc/self" && !fi.IsDir()) {
			t.Logf("no %s here", tc.dir)
			continue
		}
		var out, errb bytes.Buffer
		code := Main([]string{"new", "x", "--sdk", "foo", "--dir", tc.dir}, Stdio{In: strings.NewReader(""), Out: &out, Err: &errb})
		if got := errb.String(); code != ExitUsage || !strings.Contains(got, tc.msg) || !strings.Contains(got, tc.hint) {
			t.Errorf("new --dir %s: exit %d, stderr:\n%s", tc.dir, code, got)
		}
	}
}
