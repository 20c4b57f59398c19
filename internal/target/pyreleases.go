package target

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// PyPIFiles lists a project's files on the fetcher's simple index (the
// check's source of PyPI releases).
func (f *Fetcher) PyPIFiles(ctx context.Context, name string) ([]PyFile, error) {
	return PyPIFiles(ctx, f.pyHTTP(), f.PyPI, name)
}

// PyReleases lists the installable versions among files (a pure-Python
// wheel or an sdist, not yanked) that match spec and are newer than base
// ("" for all), oldest first in PEP 440 order. Pre-releases count only with
// pre or when a clause names one, as in PickPyFile.
func PyReleases(files []PyFile, base, spec string, pre bool) ([]PyVersion, error) {
	sp, err := ParsePySpecifier(spec)
	if err != nil {
		return nil, err
	}
	var b PyVersion
	if base != "" {
		if b, err = ParsePyVersion(base); err != nil {
			return nil, fmt.Errorf("baseline version %q: %w", base, err)
		}
	}
	var out []PyVersion
	for _, f := range files {
		if f.Yanked || !pureWheel(f.Filename) && !strings.HasSuffix(f.Filename, ".tar.gz") ||
			!sp.Match(f.Version, pre) || base != "" && f.Version.Compare(b) <= 0 {
			continue
		}
		if !slices.ContainsFunc(out, func(v PyVersion) bool { return v.Compare(f.Version) == 0 }) {
			out = append(out, f.Version)
		}
	}
	slices.SortFunc(out, PyVersion.Compare)
	return out, nil
}

// ComparePyVersions orders two version strings by PEP 440; a string that
// is not a version sorts before every version, and two such as text.
func ComparePyVersions(a, b string) int {
	va, ea := ParsePyVersion(a)
	vb, eb := ParsePyVersion(b)
	switch {
	case ea == nil && eb == nil:
		return va.Compare(vb)
	case ea != nil && eb != nil:
		return strings.Compare(a, b)
	case ea != nil:
		return -1
	}
	return 1
}
