package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"golang.org/x/mod/semver"
)

// build writes the v1 layout for the OSV files in src to out. It writes a
// sibling directory first and renames it, so an interrupted build never
// leaves a database that looks complete.
func build(src, out string, modified time.Time) error {
	files, err := filepath.Glob(filepath.Join(src, "*.json"))
	if err != nil || len(files) == 0 {
		return fmt.Errorf("finding OSV entries in %s: none found (%v)", src, err)
	}
	tmp := out + ".tmp"
	if err := os.RemoveAll(tmp); err != nil {
		return fmt.Errorf("clearing %s: %w", tmp, err)
	}
	for _, d := range []string{"ID", "index"} {
		if err := os.MkdirAll(filepath.Join(tmp, d), 0o755); err != nil {
			return fmt.Errorf("creating %s: %w", d, err)
		}
	}
	modules := map[string]*moduleMeta{}
	for _, f := range files {
		if err := addEntry(f, tmp, modules); err != nil {
			return err
		}
	}
	if err := writeIndex(tmp, modules, modified); err != nil {
		return err
	}
	if err := os.RemoveAll(out); err != nil {
		return fmt.Errorf("clearing %s: %w", out, err)
	}
	if err := os.Rename(tmp, out); err != nil {
		return fmt.Errorf("moving the database into place: %w", err)
	}
	fmt.Fprintf(os.Stderr, "vulndb: %d entries, %d modules in %s\n", len(files), len(modules), out)
	return nil
}

// addEntry copies one OSV file unchanged to ID/ and indexes it by module.
func addEntry(file, dir string, modules map[string]*moduleMeta) error {
	b, err := os.ReadFile(file)
	if err != nil {
		return fmt.Errorf("reading OSV entry: %w", err)
	}
	var e entry
	if err := json.Unmarshal(b, &e); err != nil {
		return fmt.Errorf("decoding %s: %w", file, err)
	}
	if filepath.Base(file) != e.ID+".json" {
		return fmt.Errorf("decoding %s: its id is %q", file, e.ID)
	}
	if err := os.WriteFile(filepath.Join(dir, "ID", e.ID+".json"), b, 0o644); err != nil {
		return fmt.Errorf("writing %s: %w", e.ID, err)
	}
	for _, a := range e.Affected {
		m := modules[a.Package.Name]
		if m == nil {
			m = &moduleMeta{Path: a.Package.Name}
			modules[a.Package.Name] = m
		}
		m.Vulns = append(m.Vulns, moduleVuln{ID: e.ID, Modified: e.Modified, Fixed: latestFix(a.Ranges)})
	}
	return nil
}

// latestFix mirrors x/vuln's semver.NonSupersededFix: the highest fixed
// version, or none when the bug was reintroduced after it. govulncheck
// skips an entry whose fix is at or below the version in use.
func latestFix(ranges []osvRange) string {
	less := func(a, b string) bool { return semver.Compare(canon(a), canon(b)) < 0 }
	var latest string
	for _, r := range ranges {
		if r.Type != "SEMVER" {
			continue
		}
		for _, ev := range r.Events {
			if ev.Fixed != "" && less(latest, ev.Fixed) {
				latest = ev.Fixed
			}
		}
		for _, ev := range r.Events {
			if ev.Introduced != "" && ev.Introduced != "0" && less(latest, ev.Introduced) {
				latest = ""
				break
			}
		}
	}
	return latest
}

func canon(v string) string {
	if v == "" {
		return ""
	}
	return "v" + strings.TrimPrefix(v, "v")
}

func writeIndex(dir string, modules map[string]*moduleMeta, modified time.Time) error {
	list := make([]*moduleMeta, 0, len(modules))
	for _, m := range modules {
		slices.SortFunc(m.Vulns, func(a, b moduleVuln) int { return strings.Compare(a.ID, b.ID) })
		list = append(list, m)
	}
	slices.SortFunc(list, func(a, b *moduleMeta) int { return strings.Compare(a.Path, b.Path) })
	for name, v := range map[string]any{"db.json": map[string]time.Time{"modified": modified}, "modules.json": list} {
		b, err := json.Marshal(v)
		if err != nil {
			return fmt.Errorf("encoding %s: %w", name, err)
		}
		if err := os.WriteFile(filepath.Join(dir, "index", name), b, 0o644); err != nil {
			return fmt.Errorf("writing %s: %w", name, err)
		}
	}
	return nil
}
