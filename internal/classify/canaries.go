package classify

import (
	"path"
	"strings"

	"github.com/mcp-audit/mcp-audit/internal/canary"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
)

// placeCanaries learns where the decoy files lie in the sandbox, so that a
// file access can be matched by path after links are followed.
func (c *classifier) placeCanaries() {
	if c.in.Canaries == nil {
		return
	}
	c.finder = canary.NewFinder(c.in.Canaries.All())
	for _, f := range c.in.Canaries.Files {
		if f.Canary {
			c.canaryAt[c.absDecoy(f.Path)] = "file:" + f.Path
		}
	}
}

func (c *classifier) absDecoy(p string) string {
	switch {
	case strings.HasPrefix(p, "~/"):
		return path.Join(c.in.Layout.Home, p[2:])
	case strings.HasPrefix(p, "<workspace>/"):
		return path.Join(c.in.Layout.Workspace, strings.TrimPrefix(p, "<workspace>/"))
	}
	return p
}

// fileHow names the canary hit of a successful access to a decoy file;
// probes and directory changes are not hits. A create at a decoy's path
// (the destination of a rename or link) replaces the decoy.
var fileHow = map[string]string{m.AccessRead: m.HowFileRead, m.AccessWrite: m.HowFileWrite, m.AccessDelete: m.HowFileDelete,
	m.AccessRename: m.HowFileRename, m.AccessCreate: m.HowFileWrite}

// fileCanary records a successful access to a decoy file.
func (c *classifier) fileCanary(p *phaseAcc, name string, fa m.FileAccess) {
	how := fileHow[fa.Access]
	if how == "" {
		return
	}
	ev := fa.Path
	if fa.Target != "" {
		ev = fa.Path + " -> " + fa.Target
	}
	p.Canaries = append(p.Canaries, m.CanaryHit{Canary: name, How: how, Evidence: ev})
	if how == m.HowFileRead {
		c.readCan[name] = true
	}
}

// canaryScan records canary values found in data sent out.
func (c *classifier) canaryScan(p *phaseAcc, data []byte, evidence string) {
	for _, h := range c.finder.Find(data) {
		p.Canaries = append(p.Canaries, m.CanaryHit{Canary: h.Canary, How: m.HowSent, Evidence: evidence, Encoding: h.Encoding})
	}
}

// witness adds canary reads that only the access-time check saw.
func (c *classifier) witness() {
	for _, w := range c.in.Witness {
		name := "file:" + w.Path
		if c.readCan[name] {
			continue
		}
		p := c.phaseAt(w.Time)
		ev := w.Path + " read without a traced open (access time changed)"
		if w.Evidence != "" {
			ev = w.Path + " " + w.Evidence
		}
		p.Canaries = append(p.Canaries, m.CanaryHit{Canary: name, How: m.HowFileReadWitness, Evidence: ev})
	}
}

// written searches the files the server changed in the workspace for
// canary values. A decoy file itself is skipped (changing it is already a
// file-write hit, and it holds its own value). The hit goes to the phase
// whose trace last wrote the file, else to the phase of its modification
// time.
func (c *classifier) written() {
	for _, w := range c.in.Written {
		norm := c.in.Layout.Normalize(w.Path)
		if c.canaryAt[w.Path] != "" || c.decoyIntact[norm] {
			continue // a decoy itself, or a planted file as planted (git freshening an object it has)
		}
		hits := c.finder.Find(w.Data)
		if len(hits) == 0 {
			continue
		}
		p := c.phaseWriting(norm)
		if p == nil {
			p = c.phaseAt(w.ModTime)
		}
		for _, h := range hits {
			if strings.HasPrefix(h.Canary, canary.ContentPrefix) || c.gitStore(norm, h.Canary) {
				continue // the workspace's own content, in a workspace file or git's store of it
			}
			p.Canaries = append(p.Canaries, m.CanaryHit{Canary: h.Canary, How: m.HowWrittenToFile, Evidence: norm, Encoding: h.Encoding})
		}
	}
}

// phaseWriting is the last phase whose trace wrote or created the
// normalized path, nil if none did. Asked only once the trace is read (for
// every file read back, and every seeded one), so the index of last
// writers is built once, on first use.
func (c *classifier) phaseWriting(norm string) *phaseAcc {
	if c.writers == nil {
		c.writers = map[string]*phaseAcc{}
		for _, p := range c.phases { // later phases overwrite earlier ones
			for fa := range p.files {
				if fa.Access == m.AccessWrite || fa.Access == m.AccessCreate {
					c.writers[fa.Path] = p
					if fa.Target != "" {
						c.writers[fa.Target] = p
					}
				}
			}
		}
	}
	return c.writers[norm]
}
