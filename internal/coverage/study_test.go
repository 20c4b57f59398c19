package coverage

import (
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	m "github.com/mcp-audit/mcp-audit/internal/manifest"
)

var update = flag.Bool("update", false, "rewrite testdata/study.golden")

// TestStudyCoverage computes the coverage of the 40 study servers'
// recorded manifests: the summary line and the reasons each is
// incomplete are pinned in testdata/study.golden (rewrite with -update),
// so a change of the error classes or the incomplete rules shows here. The
// first line is the study's tally, as make study prints it.
func TestStudyCoverage(t *testing.T) {
	var lines []string
	var tally Tally
	err := filepath.WalkDir(filepath.Join("..", "policy", "testdata", "study"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		man, err := m.Decode(data)
		if err != nil {
			return err
		}
		c := Compute(man, "")
		tally.Add(man)
		block := fmt.Sprintf("%s@%s: %s", man.Target.Name, man.Target.Version, Summary(c))
		for _, r := range c.Incomplete {
			block += "\n    incomplete: " + r
		}
		lines = append(lines, block)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(lines)
	got := tally.String() + "\n" + strings.Join(lines, "\n") + "\n"
	golden := filepath.Join("testdata", "study.golden")
	if *update {
		os.MkdirAll("testdata", 0o755)
		os.WriteFile(golden, []byte(got), 0o644)
	}
	want, _ := os.ReadFile(golden)
	if d := cmp.Diff(string(want), got); d != "" {
		t.Errorf("study coverage (-want +got, rewrite with -update):\n%s", d)
	}
}
