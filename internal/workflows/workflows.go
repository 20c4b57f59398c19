// Package workflows finds the GitHub Actions workflows this repository
// ships (its own, and the examples in docs/) so that tests can lint them.
package workflows

import "path/filepath"

// Files lists workflow files under the repository root.
func Files(root string) ([]string, error) {
	var out []string
	for _, pattern := range []string{".github/workflows/*.yml", "docs/workflows/*.yml"} {
		m, err := filepath.Glob(filepath.Join(root, pattern))
		if err != nil {
			return nil, err
		}
		out = append(out, m...)
	}
	return out, nil
}
