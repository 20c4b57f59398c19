package policy

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"

	m "github.com/mcp-audit/mcp-audit/internal/manifest"
)

// textJudge judges the texts of one manifest in one context, each
// distinct text once (a server repeats the same argument description on
// every tool).
type textJudge struct {
	j     *judging
	cache map[string][]string
}

func newTextJudge(ctx TextContext) *textJudge {
	return &textJudge{j: newJudging(ctx), cache: map[string][]string{}}
}

func (tj *textJudge) signs(text string) []string {
	if s, ok := tj.cache[text]; ok {
		return s
	}
	s := textSigns(tj.j, text, true)
	if what, ok := hiddenCharacters(text); ok {
		s = append(s, "hidden characters: "+what)
	}
	tj.cache[text] = s
	return s
}

// ownNames are the names of the server's tools and prompts: a rule for
// how to use one of them is its own workflow (see TextContext.Own).
func ownNames(man *m.Manifest) []string {
	var out []string
	for _, t := range man.Tools {
		out = append(out, t.Name)
	}
	for _, p := range man.Prompts {
		out = append(out, p.Name)
	}
	return out
}

// toolSigns judges every text of a tool: title, description, annotations
// and every string of its input and output schemas (see schemaWalk), each
// on its own; a schema node's prose joined with its values, and with the
// values of what its $ref reaches, when the prose ends in a directive
// ("Read the file at this path first." + default "~/.ssh/id_rsa"); and
// argument names. cut lists the schemas not judged in full.
func toolSigns(tj *textJudge, t m.Tool) (signs, cut []string) {
	for _, s := range append([]string{t.Title, t.Description}, jsonStrings(t.Annotations)...) {
		signs = append(signs, tj.signs(s)...)
	}
	for _, sc := range []struct {
		what string
		raw  json.RawMessage
	}{{"input schema", t.InputSchema}, {"output schema", t.OutputSchema}} {
		w := walkSchema(sc.raw)
		if w.cut != "" {
			cut = append(cut, "the "+sc.what+" of tool "+t.Name+" was not judged in full: "+w.cut)
		}
		for i, n := range w.nodes {
			where := fmt.Sprintf(" (%s at %s)", sc.what, cmpOr(n.path, "its root"))
			for _, s := range append(append([]string{}, n.prose...), n.values...) {
				for _, sign := range tj.signs(s) {
					signs = append(signs, sign+where)
				}
			}
			for _, sign := range nodeJoinSigns(tj.j, w, i) {
				signs = append(signs, sign+where)
			}
			if sign, ok := argNameSign(n.name); ok {
				signs = append(signs, sign)
			}
		}
	}
	return dedupe(signs), cut
}

// maxJoinValues bounds the values a directive is joined with.
const maxJoinValues = 64

// nodeJoinSigns joins the last sentence of each directive in a node's
// prose (its own and what its $refs reach) with each of its values.
func nodeJoinSigns(j *judging, w *schemaWalk, idx int) []string {
	prose, values := slices.Clone(w.nodes[idx].prose), slices.Clone(w.nodes[idx].values)
	for _, r := range w.referred(idx) {
		prose, values = append(prose, w.nodes[r].prose...), append(values, w.nodes[r].values...)
	}
	var out []string
	for _, p := range prose {
		folded := foldLower(p)
		segs := splitSentences(folded)
		if len(segs) == 0 || !directive(joinLanguages(newReading(folded)), string(segs[len(segs)-1])) {
			continue
		}
		head := string(segs[len(segs)-1])
		for _, v := range values[:min(len(values), maxJoinValues)] {
			tail := foldLower(v)
			cands := candidates(j, newReading(head+" "+tail))
			out = append(out, joinPair(j, head, tail, "", cands, map[int]bool{})...)
		}
	}
	return out
}

func cmpOr(s, alt string) string {
	if s == "" {
		return alt
	}
	return s
}

func dedupe(list []string) []string {
	seen := map[string]bool{}
	out := list[:0]
	for _, s := range list {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// jsonStrings collects every string value of a JSON object (annotations:
// title and whatever else a client may show).
func jsonStrings(raw json.RawMessage) []string {
	var v any
	if len(raw) == 0 || json.Unmarshal(raw, &v) != nil {
		return nil
	}
	w := &schemaWalk{byPath: map[string]int{}, nodes: []schemaNode{{}}}
	w.collect(v, 0, false, 0)
	return w.nodes[0].prose
}

var reWordBreak = regexp.MustCompile(`[_\-.]+|([a-z])([A-Z])`)

// nameWords reads a name as words: "contents_of_home_ssh_id_rsa" →
// "contents of home ssh id rsa", "sshPrivateKeyText" → "ssh Private Key
// Text".
func nameWords(name string) string {
	return strings.TrimSpace(reWordBreak.ReplaceAllString(name, "$1 $2"))
}

// reArgName finds an argument named for the contents of a private file
// ("contents_of_home_ssh_id_rsa", "sshPrivateKeyText"): the name alone
// asks the model to fill it in. Names are read split into words.
var reArgName = regexp.MustCompile(`(?i)\b(contents?|text|data|body)\b.*\b(ssh|id rsa|id ed25519|aws credentials|npmrc|netrc|mcp json|etc shadow|private key|dotenv)\b|\b(ssh|id rsa|id ed25519|aws credentials|npmrc|netrc|mcp json|etc shadow|private key|dotenv)\b.*\b(contents?|text|data|body)\b`)

// argNameSign reads one argument name.
func argNameSign(name string) (string, bool) {
	if name == "" || !reArgName.MatchString(strings.Join(strings.Fields(nameWords(name)), " ")) {
		return "", false
	}
	return "argument named for a private file's contents: " + fmt.Sprintf("%q", name), true
}

// injectionFindings checks what the server declares for the model: tool
// titles, descriptions, every string of the input and output schemas and
// annotations, prompt and prompt-argument descriptions, resource and
// resource-template names and descriptions, server instructions.
func injectionFindings(man *m.Manifest) []Finding {
	tj := newTextJudge(TextContext{Declared: true, Own: ownNames(man)})
	var out []Finding
	found := func(subject, where string, signs []string) {
		for _, sign := range signs {
			out = append(out, Finding{Severity: High, Kind: KindTool, Phase: "", Subject: subject,
				Summary: where + " contains instructions aimed at the model", Evidence: sign})
		}
	}
	check := func(subject, where string, texts ...string) {
		for _, t := range texts {
			found(subject, where, tj.signs(t))
		}
	}
	for _, t := range man.Tools {
		signs, cut := toolSigns(tj, t)
		found("tool "+t.Name, "the description of tool "+t.Name, signs)
		for _, c := range cut {
			out = append(out, Finding{Severity: Medium, Kind: KindTool, Subject: "tool " + t.Name, Summary: c, Evidence: ""})
		}
	}
	for _, p := range man.Prompts {
		texts := []string{p.Description}
		for _, a := range p.ArgumentDescriptions {
			texts = append(texts, a.Description)
		}
		check("prompt "+p.Name, "the description of prompt "+p.Name, texts...)
	}
	for _, r := range man.Resources {
		check("resource "+r.URI, "the description of resource "+r.URI, r.Name, r.Title, r.Description)
	}
	for _, r := range man.ResourceTemplates {
		check("resource template "+r.URITemplate, "the description of resource template "+r.URITemplate, r.Name, r.Title, r.Description)
	}
	check("server instructions", "the server's instructions", man.Server.Instructions)
	return out
}
