package release

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bsadapter/bsadapter/internal/testenv"
	"go.yaml.in/yaml/v3"
)

// goreleaserConfig is the part of .goreleaser.yaml that install.sh, the
// version command and the docs rely on.
type goreleaserConfig struct {
	Version     int    `yaml:"version"`
	ProjectName string `yaml:"project_name"`
	Before      struct {
		Hooks []string `yaml:"hooks"`
	} `yaml:"before"`
	Builds []struct {
		ID      string   `yaml:"id"`
		Main    string   `yaml:"main"`
		Binary  string   `yaml:"binary"`
		Env     []string `yaml:"env"`
		Flags   []string `yaml:"flags"`
		Ldflags []string `yaml:"ldflags"`
		Goos    []string `yaml:"goos"`
		Goarch  []string `yaml:"goarch"`
	} `yaml:"builds"`
	Archives []struct {
		Formats         []string `yaml:"formats"`
		FormatOverrides []struct {
			Goos    string   `yaml:"goos"`
			Formats []string `yaml:"formats"`
		} `yaml:"format_overrides"`
		NameTemplate string `yaml:"name_template"`
		Files        []any  `yaml:"files"`
	} `yaml:"archives"`
	Checksum struct {
		NameTemplate string `yaml:"name_template"`
		Algorithm    string `yaml:"algorithm"`
	} `yaml:"checksum"`
	Release struct {
		ExtraFiles []struct {
			Glob string `yaml:"glob"`
		} `yaml:"extra_files"`
	} `yaml:"release"`
	Casks []struct {
		SkipUpload  string            `yaml:"skip_upload"`
		Binaries    []string          `yaml:"binaries"`
		Completions map[string]string `yaml:"completions"`
		Manpages    []string          `yaml:"manpages"`
	} `yaml:"homebrew_casks"`
}

func loadGoreleaser(t *testing.T) goreleaserConfig {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(testenv.RepoRoot(t), ".goreleaser.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var c goreleaserConfig
	if err := yaml.Unmarshal(data, &c); err != nil {
		t.Fatalf(".goreleaser.yaml: %v", err)
	}
	return c
}

// TestGoreleaserMatchesInstallScript keeps .goreleaser.yaml, install.sh
// and this package in agreement without running GoReleaser (which
// scripts/release-check does): the platforms, the archive names, the
// checksum file, the static build and the version ldflags.
func TestGoreleaserMatchesInstallScript(t *testing.T) {
	c := loadGoreleaser(t)
	if c.Version != 2 || c.ProjectName != "bsadapter" {
		t.Fatalf("want a version 2 config for project bsadapter, got version %d project %q", c.Version, c.ProjectName)
	}
	if len(c.Builds) != 1 || len(c.Archives) != 1 {
		t.Fatalf("want one build and one archive, got %d and %d", len(c.Builds), len(c.Archives))
	}
	b := c.Builds[0]
	if b.Main != "./cmd/bsadapter" || b.Binary != "bsadapter" {
		t.Errorf("build main %q binary %q", b.Main, b.Binary)
	}
	if !slices.Contains(b.Env, "CGO_ENABLED=0") || !slices.Contains(b.Flags, "-trimpath") {
		t.Errorf("the build is not static and trimmed: env %v flags %v", b.Env, b.Flags)
	}
	ld := strings.Join(b.Ldflags, " ")
	for _, want := range []string{"-s -w", VersionPackage + ".version={{ .Version }}", VersionPackage + ".commit=", VersionPackage + ".date="} {
		if !strings.Contains(ld, want) {
			t.Errorf("ldflags lack %q: %s", want, ld)
		}
	}
	var platforms [][2]string
	for _, goos := range b.Goos {
		for _, goarch := range b.Goarch {
			platforms = append(platforms, [2]string{goos, goarch})
		}
	}
	for _, p := range Platforms {
		if !slices.Contains(platforms, p) {
			t.Errorf("the build lacks %s/%s", p[0], p[1])
		}
	}
	if len(platforms) != len(Platforms) {
		t.Errorf("the build has %d platforms, the release promises %d", len(platforms), len(Platforms))
	}

	a := c.Archives[0]
	for _, p := range Platforms {
		format := a.Formats
		for _, o := range a.FormatOverrides {
			if o.Goos == p[0] {
				format = o.Formats
			}
		}
		name := expandName(a.NameTemplate, c.ProjectName, p[0], p[1])
		if len(format) != 1 {
			t.Fatalf("%s/%s: want one archive format, got %v", p[0], p[1], format)
		}
		if got, want := name+"."+format[0], ArchiveName(p[0], p[1]); got != want {
			t.Errorf("%s/%s: GoReleaser names the archive %s, install.sh expects %s", p[0], p[1], got, want)
		}
	}
	var files []string
	for _, f := range a.Files {
		switch v := f.(type) {
		case string:
			files = append(files, v)
		case map[string]any:
			files = append(files, fmt.Sprint(v["dst"]))
		}
	}
	for _, want := range []string{"README.md", "LICENSE", "completions", "manpages"} {
		if !slices.Contains(files, want) {
			t.Errorf("the archives do not ship %s (files: %v)", want, files)
		}
	}
	hooks := strings.Join(c.Before.Hooks, "\n")
	if !strings.Contains(hooks, "go run ./internal/cmd/docgen") || !strings.Contains(hooks, "-man ") || !strings.Contains(hooks, "-completions ") {
		t.Errorf("no before hook generates the man pages and completions:\n%s", hooks)
	}

	if c.Checksum.NameTemplate != ChecksumsFile || c.Checksum.Algorithm != "sha256" {
		t.Errorf("checksums: %q with %q, install.sh reads %s with SHA-256", c.Checksum.NameTemplate, c.Checksum.Algorithm, ChecksumsFile)
	}
	if len(c.Release.ExtraFiles) == 0 || c.Release.ExtraFiles[0].Glob != "./install.sh" {
		t.Errorf("the release does not publish install.sh, which the README downloads from the release")
	}
	if len(c.Casks) != 1 || c.Casks[0].SkipUpload != "auto" || !slices.Equal(c.Casks[0].Binaries, []string{"bsadapter"}) {
		t.Fatalf("the Homebrew cask is missing, does not install bsadapter, or publishes pre-releases")
	}
	for shell, file := range c.Casks[0].Completions {
		if !slices.Contains(ArchiveFiles, file) {
			t.Errorf("the cask installs %s completions from %s, which the archives do not hold", shell, file)
		}
	}
	if !slices.Contains(c.Casks[0].Manpages, "manpages/bsadapter.1") {
		t.Errorf("the cask does not install the man pages")
	}
}

// expandName evaluates the few template fields the archive name uses;
// any other field is left in place and makes the comparison fail.
func expandName(tmpl, project, goos, goarch string) string {
	r := strings.NewReplacer("{{ .ProjectName }}", project, "{{ .Os }}", goos, "{{ .Arch }}", goarch)
	return r.Replace(tmpl)
}

// TestGoInstallable guards what "go install
// github.com/bsadapter/bsadapter/cmd/bsadapter@latest" needs from go.mod:
// the module path, and no replace or exclude directives (go install
// refuses a module@version whose go.mod has them) and no local paths.
func TestGoInstallable(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(testenv.RepoRoot(t), "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	if strings.TrimSpace(lines[0]) != "module github.com/bsadapter/bsadapter" {
		t.Errorf("go.mod declares %q, but the docs install github.com/bsadapter/bsadapter/cmd/bsadapter", lines[0])
	}
	for i, l := range lines {
		f := strings.Fields(l)
		if len(f) > 0 && (f[0] == "replace" || f[0] == "exclude") {
			t.Errorf("go.mod:%d: %q breaks go install ...@latest; remove it", i+1, strings.TrimSpace(l))
		}
	}
	if _, err := os.Stat(filepath.Join(testenv.RepoRoot(t), "cmd", "bsadapter", "main.go")); err != nil {
		t.Errorf("cmd/bsadapter/main.go: %v", err)
	}
}
