package wizard_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/bsadapter/bsadapter/internal/scaffold/wizard"
	"github.com/bsadapter/bsadapter/internal/testenv"
)

// buildBinary builds bsadapter into a temp folder.
func buildBinary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "bsadapter")
	cmd := exec.Command("go", "build", "-o", bin, "github.com/bsadapter/bsadapter/cmd/bsadapter")
	cmd.Dir = testenv.RepoRoot(t)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// term is one tmux session on a private server, killed at cleanup.
type term struct {
	t       *testing.T
	tmux    string
	socket  string
	session string
}

func (tm *term) run(args ...string) string {
	tm.t.Helper()
	out, err := exec.Command(tm.tmux, append([]string{"-S", tm.socket}, args...)...).CombinedOutput()
	if err != nil {
		tm.t.Fatalf("tmux %v: %v\n%s", args, err, out)
	}
	return string(out)
}

func (tm *term) screen() string { return tm.run("capture-pane", "-p", "-t", tm.session) }

// typeKeys sends each rune as its own key press.
func (tm *term) typeKeys(s string) {
	for _, r := range s {
		tm.run("send-keys", "-t", tm.session, "-l", string(r))
	}
}

func (tm *term) key(name string) { tm.run("send-keys", "-t", tm.session, name) }

// waitFor polls the screen until it shows want. The deadline only guards
// against a hang; nothing here measures time.
func (tm *term) waitFor(want string) string {
	tm.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		s := tm.screen()
		if strings.Contains(s, want) {
			return s
		}
		if time.Now().After(deadline) {
			tm.t.Fatalf("the terminal never showed %q; it shows:\n%s", want, s)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func startTerm(t *testing.T, dir, command string) *term {
	tmuxPath, err := exec.LookPath("tmux")
	if err != nil {
		testenv.Missing(t, "tmux is not installed (apt-get install tmux; scripts/test does it)")
	}
	// A short socket path: unix socket paths are limited to ~107 bytes.
	sockDir, err := os.MkdirTemp("", "bsa-tmux")
	if err != nil {
		t.Fatal(err)
	}
	tm := &term{t: t, tmux: tmuxPath, socket: filepath.Join(sockDir, "s"), session: "wizard"}
	t.Cleanup(func() {
		exec.Command(tmuxPath, "-S", tm.socket, "kill-server").Run()
		os.RemoveAll(sockDir)
	})
	// 160 columns hold the whole list of contracts on one line, as the
	// checks read it. CI is unset inside the terminal: the wizard runs
	// only without it, and this test must run under CI too.
	tm.run("new-session", "-d", "-s", tm.session, "-x", "160", "-y", "40", "-c", dir,
		"env -u CI TERM=xterm-256color NO_COLOR=1 sh -c '"+command+"; echo EXIT=$?; sleep 600'")
	return tm
}

func TestWizardInATerminal(t *testing.T) {
	bin := buildBinary(t)
	dir := t.TempDir()
	tm := startTerm(t, dir, bin+" new")

	tm.waitFor("Adapter name")
	// Validation runs as you type.
	tm.typeKeys("Lang")
	tm.waitFor("not lowercase kebab-case")
	for range 4 {
		tm.key("BSpace")
	}
	tm.typeKeys("streams")
	tm.waitFor("already a better-supabase subpath")
	tm.key("C-u")
	tm.typeKeys("langchain")
	tm.waitFor("✓ enter to accept")
	tm.key("Enter")

	// The SDK's default follows the name.
	tm.waitFor("SDK npm package(s) [@langchain/core]")
	tm.key("Enter")
	tm.waitFor("Message format name [langchain-v1]")
	tm.key("Enter")
	tm.waitFor("Contracts [chat,streams,workflows]")
	// The help offers every contract, the new interfaces included.
	tm.waitFor("chat, streams, workflows, chat-state, credentials, engine, builder, world, embedder, ai-task-runner")
	tm.typeKeys("chat,cron")
	tm.waitFor(`"cron" is not a contract (the contracts are chat, streams, workflows, chat-state, credentials, engine, builder, world, embedder, ai-task-runner)`)
	for range 4 {
		tm.key("BSpace")
	}
	tm.typeKeys("engine")
	tm.waitFor(`"engine" needs the workflows contract`)
	tm.key("C-u")
	tm.typeKeys("chat,streams,chat-state,credentials")
	tm.waitFor("✓ enter to accept")
	tm.key("Enter")
	tm.waitFor("Engine SQL module [none]")
	tm.key("Tab") // fills in the default to edit it
	tm.key("C-u")
	tm.typeKeys("langchain-state")
	tm.key("Enter")

	s := tm.waitFor("EXIT=")
	if !strings.Contains(s, "EXIT=0") || !strings.Contains(s, `created adapter "langchain"`) {
		t.Fatalf("the command did not succeed:\n%s", s)
	}
	root := filepath.Join(dir, "langchain")
	for _, f := range []string{"src/converters.ts", "src/memory-stream-store.ts", "src/memory-chat-state.ts", "src/memory-credentials.ts",
		"bridge/chat-state.ts", "bridge/credentials.ts", "test/conform.test.ts", "sql/langchain-state.sql", "bsadapter.json"} {
		if _, err := os.Stat(filepath.Join(root, f)); err != nil {
			t.Errorf("%s was not written: %v", f, err)
		}
	}
	if _, err := os.Stat(filepath.Join(root, "src", "workflows.ts")); err == nil {
		t.Error("workflows.ts was written though the answer left workflows out")
	}
	var cfg map[string]any
	data, _ := os.ReadFile(filepath.Join(root, "bsadapter.json"))
	if err := json.Unmarshal(data, &cfg); err != nil || cfg["sdk"] != "@langchain/core" || cfg["format"] != "langchain-v1" {
		t.Errorf("bsadapter.json: %s (%v)", data, err)
	}
}

// Flags answer their questions: only the rest is asked. Esc leaves
// without writing anything.
func TestWizardAsksOnlyWhatFlagsLeftOpen(t *testing.T) {
	bin := buildBinary(t)
	dir := t.TempDir()
	tm := startTerm(t, dir, bin+" new --sdk acme-sdk --contracts chat --message-format acme-v3 --storage=acme-db")
	s := tm.waitFor("Adapter name")
	tm.typeKeys("acme")
	tm.key("Enter")
	s = tm.waitFor("EXIT=")
	for _, q := range []string{"SDK npm package", "Message format name", "Contracts", "Engine SQL module"} {
		if strings.Contains(s, "> "+q) {
			t.Errorf("asked %q although a flag answered it:\n%s", q, s)
		}
	}
	if !strings.Contains(s, "EXIT=0") {
		t.Fatalf("failed:\n%s", s)
	}
	if _, err := os.Stat(filepath.Join(dir, "acme", "sql", "acme-db.sql")); err != nil {
		t.Error(err)
	}

	dir2 := t.TempDir()
	tm2 := startTerm(t, dir2, bin+" new")
	tm2.waitFor("Adapter name")
	tm2.typeKeys("abc")
	tm2.key("Escape")
	s = tm2.waitFor("EXIT=")
	if !strings.Contains(s, "EXIT=130") || !strings.Contains(s, "nothing was written") {
		t.Errorf("Esc: want exit 130 and a note:\n%s", s)
	}
	if entries, _ := os.ReadDir(dir2); len(entries) != 0 {
		t.Errorf("Esc left files: %v", entries)
	}
}

// The model itself, key by key, without a terminal.
func TestModelValidatesAsYouType(t *testing.T) {
	fields := []wizard.Field{{
		Key: "name", Label: "Name", Flag: "NAME",
		Validate: func(v string, _ map[string]string) error {
			if v != strings.ToLower(v) || v == "" {
				return errors.New("lowercase please")
			}
			return nil
		},
	}, {
		Key: "fmt", Label: "Format", Flag: "--format",
		Default: func(a map[string]string) string { return a["name"] + "-v1" },
	}}
	m := wizard.NewModelForTest(fields)
	press := func(msgs ...tea.KeyMsg) {
		for _, k := range msgs {
			m.Update(k)
		}
	}
	runes := func(s string) tea.KeyMsg { return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s)} }
	press(runes("A"))
	if !strings.Contains(m.View(), "lowercase please") {
		t.Errorf("no error after typing A:\n%s", m.View())
	}
	press(tea.KeyMsg{Type: tea.KeyEnter})
	if strings.Contains(m.View(), "Format") {
		t.Error("Enter moved on past an invalid value")
	}
	press(tea.KeyMsg{Type: tea.KeyBackspace}, runes("x"), tea.KeyMsg{Type: tea.KeyEnter})
	if v := m.View(); !strings.Contains(v, "Format [x-v1]") {
		t.Errorf("the default does not follow the answer:\n%s", v)
	}
	press(tea.KeyMsg{Type: tea.KeyEnter})
	if got := fmt.Sprint(m.Answers()); got != "map[fmt:x-v1 name:x]" {
		t.Errorf("answers %s", got)
	}
}
