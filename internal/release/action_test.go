package release

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/bsadapter/bsadapter/internal/pgserver"
	"github.com/bsadapter/bsadapter/internal/testenv"
)

// action is the part of action.yml the tests read.
type action struct {
	Name        string `yaml:"name"`
	Description string `yaml:"description"`
	Author      string `yaml:"author"`
	Branding    struct {
		Icon  string `yaml:"icon"`
		Color string `yaml:"color"`
	} `yaml:"branding"`
	Inputs map[string]struct {
		Description string  `yaml:"description"`
		Required    bool    `yaml:"required"`
		Default     *string `yaml:"default"`
	} `yaml:"inputs"`
	Outputs map[string]struct {
		Description string `yaml:"description"`
		Value       string `yaml:"value"`
	} `yaml:"outputs"`
	Runs struct {
		Using string       `yaml:"using"`
		Steps []actionStep `yaml:"steps"`
	} `yaml:"runs"`
}

type actionStep struct {
	ID               string            `yaml:"id"`
	If               string            `yaml:"if"`
	Uses             string            `yaml:"uses"`
	Shell            string            `yaml:"shell"`
	Run              string            `yaml:"run"`
	WorkingDirectory string            `yaml:"working-directory"`
	Env              map[string]string `yaml:"env"`
	With             map[string]string `yaml:"with"`
}

func readAction(t *testing.T) action {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(testenv.RepoRoot(t), "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var a action
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&a); err != nil {
		t.Fatalf("action.yml: %v", err)
	}
	return a
}

// action.yml is a composite action with the inputs the docs describe: an
// install step that runs the repository's install.sh (not a copy of its
// checks), the PostgreSQL cache on bsadapter's cache folder, and the
// command, whose inputs reach the shell through the environment only.
func TestActionStructure(t *testing.T) {
	a := readAction(t)
	if a.Name == "" || a.Description == "" {
		t.Error("action.yml needs a name and a description")
	}
	if a.Runs.Using != "composite" {
		t.Fatalf("runs.using is %q, want composite", a.Runs.Using)
	}
	for name, def := range map[string]string{"version": "latest", "args": "", "working-directory": ".", "cache": "true"} {
		in, ok := a.Inputs[name]
		switch {
		case !ok:
			t.Errorf("no input %q", name)
		case in.Description == "" || in.Required || in.Default == nil || *in.Default != def:
			t.Errorf("input %q: want a description, not required, default %q; got %+v", name, def, in)
		}
	}
	for _, name := range []string{"version", "cache-dir"} {
		if o := a.Outputs[name]; o.Value != "${{ steps.install.outputs."+name+" }}" {
			t.Errorf("output %q is %q", name, o.Value)
		}
	}
	steps := a.Runs.Steps
	if len(steps) != 3 {
		t.Fatalf("%d steps, want install, cache and run", len(steps))
	}
	install, cache, run := steps[0], steps[1], steps[2]

	if install.ID != "install" || install.Shell != "bash" || !strings.Contains(install.Run, `sh "$GITHUB_ACTION_PATH/install.sh"`) {
		t.Errorf("the install step does not run the repository's install.sh:\n%+v", install)
	}
	for _, dup := range []string{"sha256", "checksums.txt", "curl", "wget"} {
		if strings.Contains(install.Run, dup) {
			t.Errorf("the install step does %s itself: install.sh does that", dup)
		}
	}
	script, err := os.ReadFile(filepath.Join(testenv.RepoRoot(t), "install.sh"))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"BSADAPTER_VERSION", "BSADAPTER_INSTALL_DIR"} {
		if _, ok := install.Env[name]; !ok || !bytes.Contains(script, []byte(name)) {
			t.Errorf("the install step should pass %s, which install.sh reads", name)
		}
	}

	if !strings.HasPrefix(cache.Uses, "actions/cache@v") || cache.If != "inputs.cache == 'true'" {
		t.Errorf("cache step: %+v", cache)
	}
	if cache.With["path"] != "${{ steps.install.outputs.cache-dir }}" {
		t.Errorf("the cache step keeps %q, not the cache folder the install step found", cache.With["path"])
	}
	for _, part := range []string{"runner.os", "runner.arch", "steps.install.outputs.version"} {
		if !strings.Contains(cache.With["key"], part) {
			t.Errorf("the cache key %q does not depend on %s", cache.With["key"], part)
		}
	}
	if !strings.Contains(cache.With["restore-keys"], "bsadapter-pg-${{ runner.os }}-${{ runner.arch }}-") {
		t.Errorf("restore-keys %q", cache.With["restore-keys"])
	}

	if run.If != "inputs.args != ''" || run.Env["BSADAPTER_ARGS"] != "${{ inputs.args }}" || run.WorkingDirectory != "${{ inputs.working-directory }}" {
		t.Errorf("run step: %+v", run)
	}
	for _, s := range steps {
		if strings.Contains(s.Run, "${{") {
			t.Errorf("step %q puts an expression into its script (script injection): pass it through env", s.ID)
		}
	}
}

// The action's own scripts work: the install step installs a release
// (served from a local server, checked against its checksums.txt) and
// names the folder bsadapter keeps its PostgreSQL cache in, the very
// folder bsadapter uses; a release whose checksum does not match is not
// installed; the run step runs the command line given, a shell line.
func TestActionInstallsAndRuns(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the action's scripts are run here on Linux")
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		testenv.Missing(t, "bash is not on PATH")
	}
	a := readAction(t)
	install, run := a.Runs.Steps[0], a.Runs.Steps[2]

	type stepRun struct {
		code         int
		stderr       string
		path, output string
	}
	work := t.TempDir()
	home := filepath.Join(work, "home")
	os.MkdirAll(home, 0o755)
	bin := filepath.Join(work, "runner-temp", "bsadapter-bin")
	runStep := func(script string, env ...string) stepRun {
		t.Helper()
		ghPath, ghOut := filepath.Join(work, "github-path"), filepath.Join(work, "github-output")
		os.WriteFile(ghPath, nil, 0o644)
		os.WriteFile(ghOut, nil, 0o644)
		cmd := exec.Command(bash, "-e", "-c", script)
		cmd.Dir = work
		cmd.Env = append([]string{
			"PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH"),
			"HOME=" + home,
			"TMPDIR=" + work,
			"RUNNER_OS=Linux",
			"GITHUB_ACTION_PATH=" + testenv.RepoRoot(t),
			"GITHUB_PATH=" + ghPath,
			"GITHUB_OUTPUT=" + ghOut,
		}, env...)
		var errb bytes.Buffer
		cmd.Stderr = &errb
		err := cmd.Run()
		r := stepRun{stderr: errb.String()}
		if ee, ok := err.(*exec.ExitError); ok {
			r.code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		p, _ := os.ReadFile(ghPath)
		o, _ := os.ReadFile(ghOut)
		r.path, r.output = string(p), string(o)
		return r
	}

	// The archive is not the one checksums.txt names.
	bad := serve(t, func(dir string) {
		os.WriteFile(filepath.Join(dir, HostArchive()), []byte("not the archive"), 0o644)
	})
	r := runStep(install.Run, "BSADAPTER_VERSION="+fakeVersion, "BSADAPTER_INSTALL_DIR="+bin, "BSADAPTER_INSTALL_BASE_URL="+bad.url)
	if r.code == 0 || r.path != "" || !strings.Contains(r.stderr, "nothing was installed") {
		t.Errorf("a release that does not match its checksum: exit %d, GITHUB_PATH %q\n%s", r.code, r.path, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(bin, "bsadapter")); err == nil {
		t.Error("a release that does not match its checksum was installed")
	}

	good := serve(t, nil)
	r = runStep(install.Run, "BSADAPTER_VERSION="+fakeVersion, "BSADAPTER_INSTALL_DIR="+bin, "BSADAPTER_INSTALL_BASE_URL="+good.url)
	if r.code != 0 {
		t.Fatalf("install step: exit %d\n%s", r.code, r.stderr)
	}
	if strings.TrimSpace(r.path) != bin {
		t.Errorf("GITHUB_PATH gets %q, want %s", r.path, bin)
	}
	t.Setenv("HOME", home)
	t.Setenv("XDG_CACHE_HOME", "")
	cacheDir, err := pgserver.CacheDir()
	if err != nil {
		t.Fatal(err)
	}
	if want := "version=" + fakeVersion + "\ncache-dir=" + cacheDir + "\n"; r.output != want {
		t.Errorf("GITHUB_OUTPUT is\n%s\nwant\n%s", r.output, want)
	}

	r = runStep(run.Run, `BSADAPTER_ARGS=version --format json > "version file.json"`)
	out, err := os.ReadFile(filepath.Join(work, "version file.json"))
	if r.code != 0 || err != nil || !bytes.Contains(out, []byte(`"version": "`+fakeVersion+`"`)) {
		t.Errorf("run step: exit %d, %v\n%s%s", r.code, err, out, r.stderr)
	}
	r = runStep(run.Run, "BSADAPTER_ARGS=conform --shard 0/2")
	if r.code != 2 || !strings.Contains(r.stderr, "--shard") {
		t.Errorf("run step with a bad command line: exit %d, want bsadapter's 2\n%s", r.code, r.stderr)
	}
}
