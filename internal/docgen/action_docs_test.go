package docgen

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/bsadapter/bsadapter/internal/report"
	"github.com/bsadapter/bsadapter/internal/testenv"
)

type docWorkflow struct {
	Name string `yaml:"name"`
	Jobs map[string]struct {
		Needs    []string `yaml:"needs"`
		If       string   `yaml:"if"`
		RunsOn   string   `yaml:"runs-on"`
		Strategy struct {
			FailFast *bool `yaml:"fail-fast"`
			Matrix   struct {
				Shard []int `yaml:"shard"`
			} `yaml:"matrix"`
		} `yaml:"strategy"`
		Steps []struct {
			If   string            `yaml:"if"`
			Uses string            `yaml:"uses"`
			Run  string            `yaml:"run"`
			With map[string]string `yaml:"with"`
		} `yaml:"steps"`
	} `yaml:"jobs"`
}

// The workflow of docs/github-action.md parses, splits conform and
// check-fixtures over a matrix with --shard ${{ matrix.shard }}/4 for the
// shards 1 to 4, merges them in a job that needs those, gives the action
// only the inputs action.yml has, and every bsadapter command line in it
// uses commands and flags that exist, with values they take.
func TestActionDocsWorkflow(t *testing.T) {
	page := string(readDoc(t, "github-action.md"))
	start := strings.Index(page, "```yaml\n")
	if start < 0 {
		t.Fatal("docs/github-action.md has no ```yaml block")
	}
	body := page[start+len("```yaml\n"):]
	body = body[:strings.Index(body, "```")]
	var wf docWorkflow
	if err := yaml.Unmarshal([]byte(body), &wf); err != nil {
		t.Fatalf("the workflow does not parse: %v", err)
	}

	actionData, err := os.ReadFile(filepath.Join(testenv.RepoRoot(t), "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var act struct {
		Inputs map[string]any `yaml:"inputs"`
	}
	if err := yaml.Unmarshal(actionData, &act); err != nil {
		t.Fatal(err)
	}

	var lines []string
	sharded := map[string]string{} // job -> the command it splits
	var merged []string
	for name, job := range wf.Jobs {
		for _, st := range job.Steps {
			if strings.HasPrefix(st.Uses, "bsadapter/bsadapter@") {
				for in := range st.With {
					if _, ok := act.Inputs[in]; !ok {
						t.Errorf("job %s gives the action input %q, which action.yml does not have", name, in)
					}
				}
				if a := st.With["args"]; a != "" {
					lines = append(lines, a)
					if strings.Contains(a, "--shard ${{ matrix.shard }}/4") {
						if !slices.Equal(job.Strategy.Matrix.Shard, []int{1, 2, 3, 4}) || job.Strategy.FailFast == nil || *job.Strategy.FailFast {
							t.Errorf("job %s splits in 4 but its matrix is %v (fail-fast %v)", name, job.Strategy.Matrix.Shard, job.Strategy.FailFast)
						}
						sharded[name] = strings.Fields(a)[0]
					}
				}
			}
			for _, l := range strings.Split(st.Run, "\n") {
				if rest, ok := strings.CutPrefix(strings.TrimSpace(l), "bsadapter "); ok {
					lines = append(lines, rest)
					if strings.HasPrefix(rest, "merge-reports") {
						merged = append(merged, name)
					}
				}
			}
		}
	}
	if sharded["conform"] != "conform" || sharded["fixtures"] != "check-fixtures" {
		t.Errorf("want the jobs conform and fixtures split with --shard ${{ matrix.shard }}/4, got %v", sharded)
	}
	if len(merged) == 0 {
		t.Fatal("no job runs bsadapter merge-reports")
	}
	for _, m := range merged {
		for job := range sharded {
			if !slices.Contains(wf.Jobs[m].Needs, job) || wf.Jobs[m].If != "always()" {
				t.Errorf("the merge job %s does not wait for %s whatever its outcome (needs %v, if %q)", m, job, wf.Jobs[m].Needs, wf.Jobs[m].If)
			}
		}
	}

	redirect := regexp.MustCompile(`\s*>\s*\S+\s*$`)
	for _, line := range lines {
		words := strings.Fields(redirect.ReplaceAllString(strings.ReplaceAll(line, "${{ matrix.shard }}", "3"), ""))
		root := Root()
		cmd, rest, err := root.Find(words)
		if err != nil || cmd == root {
			t.Errorf("%q: no such command (%v)", line, err)
			continue
		}
		if err := cmd.ParseFlags(rest); err != nil {
			t.Errorf("%q: %v", line, err)
			continue
		}
		if f := cmd.Flags().Lookup("shard"); f != nil && f.Changed {
			if _, _, err := report.ParseShard(f.Value.String()); err != nil {
				t.Errorf("%q: %v", line, err)
			}
		}
		if f := cmd.Flags().Lookup("format"); f != nil && f.Changed && !slices.Contains([]string{"text", "json", "junit", "github"}, f.Value.String()) {
			t.Errorf("%q: --format %s", line, f.Value)
		}
		if strings.HasPrefix(line, "merge-reports") && len(cmd.Flags().Args()) == 0 {
			t.Errorf("%q: merge-reports without files", line)
		}
	}
}
