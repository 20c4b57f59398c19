package site

import (
	"crypto/sha256"
	"fmt"
)

// write renders the site from its state and writes what changed.
func (st *state) write(base string) error {
	for p, data := range st.pending {
		if err := put(file(st.dir, p), data); err != nil {
			return err
		}
	}
	if st.report != nil {
		if err := put(file(st.dir, ReportFile), st.report); err != nil {
			return err
		}
	}
	if st.idx.FeedID == "" {
		st.idx.FeedID = uuidURN("mcp-audit feed\x00" + base)
	}
	for _, s := range st.idx.Servers {
		for _, v := range s.Versions {
			if later(v.Published, st.idx.Updated) {
				st.idx.Updated = v.Published
			}
		}
	}
	files := map[string]func() ([]byte, error){
		IndexFile:   func() ([]byte, error) { return encodeJSON(st.idx) },
		ChangesFile: func() ([]byte, error) { return encodeJSON(st.ch) },
		FeedFile:    func() ([]byte, error) { return atom(st.idx, st.ch, base) },
		HomeFile:    func() ([]byte, error) { return homePage(st.idx, st.ch) },
	}
	for _, s := range st.idx.Servers {
		files[s.Page] = func() ([]byte, error) { return serverPage(s, st.ch) }
	}
	for p, render := range files {
		data, err := render()
		if err != nil {
			return fmt.Errorf("rendering %s: %w", p, err)
		}
		if err := put(file(st.dir, p), data); err != nil {
			return err
		}
	}
	return nil
}

// uuidURN makes a stable URN from a key: a name-based UUID (version 8,
// SHA-256), so ids never carry text a server controls.
func uuidURN(key string) string {
	h := sha256.Sum256([]byte(key))
	h[6] = h[6]&0x0f | 0x80
	h[8] = h[8]&0x3f | 0x80
	return fmt.Sprintf("urn:uuid:%x-%x-%x-%x-%x", h[0:4], h[4:6], h[6:8], h[8:10], h[10:16])
}
