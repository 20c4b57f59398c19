package policy

import (
	"regexp"
	"unicode"
	"unicode/utf8"
)

// scripts are the writing systems of the languages covered beside Latin;
// a scriptSet has bit i set when a text uses scripts[i].
var scripts = []*unicode.RangeTable{unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul, unicode.Devanagari, unicode.Cyrillic, unicode.Arabic}

type scriptSet uint

// scriptsIn lists the scripts of text (folding keeps them, but for the
// Cyrillic letters that look Latin).
func scriptsIn(text string) scriptSet {
	var set scriptSet
	for i := 0; i < len(text); {
		if text[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(text[i:])
		i += n
		if k := quickScript(r); k >= 0 {
			set |= 1 << k
			continue
		}
		for k, t := range scripts {
			if unicode.Is(t, r) {
				set |= 1 << k
				break
			}
		}
	}
	return set
}

// quickScript is the index in scripts of the main block r is in, or -1.
func quickScript(r rune) int {
	switch {
	case r >= 0x4E00 && r <= 0x9FFF:
		return 0
	case r >= 0x3041 && r <= 0x309F:
		return 1
	case r >= 0x30A0 && r <= 0x30FF:
		return 2
	case r >= 0xAC00 && r <= 0xD7A3:
		return 3
	case r >= 0x0900 && r <= 0x097F:
		return 4
	case r >= 0x0400 && r <= 0x04FF:
		return 5
	case r >= 0x0600 && r <= 0x06FF:
		return 6
	}
	return -1
}

// mask is the scriptSet of the language's scripts.
func (l *compiledLanguage) mask() scriptSet {
	var set scriptSet
	for _, t := range l.script {
		for k, s := range scripts {
			if s == t {
				set |= 1 << k
			}
		}
	}
	return set
}

// reads reports whether the language's rules are worth reading on a text
// (lower case, folded, a space added before and after it) that uses the
// scripts present.
func (l *compiledLanguage) reads(padded string, present scriptSet) bool {
	if len(l.script) > 0 {
		return present&l.mask() != 0
	}
	return containsAny(padded, l.need)
}

// languageRules builds the rules of every language: its core requests,
// tool shadowing, and (in messages) the model addressed.
func languageRules() []injectionRule {
	var out []injectionRule
	for i := range compiledLanguages {
		l := &compiledLanguages[i]
		suffix := ""
		if l.code != "en" {
			suffix = " (" + l.name + ")"
		}
		add := func(what string, re *regexp.Regexp, r injectionRule) {
			if re != nil {
				r.what, r.re, r.lang = what+suffix, re, l
				out = append(out, r)
			}
		}
		add("overrides other instructions", l.ignoreRe, injectionRule{})
		add("overrides other instructions", l.instrRe, injectionRule{keep: l.inSentence(l.cancelRe)})
		add("asks to keep something from the user", l.hideRe, injectionRule{})
		add("asks to keep something from the user", l.userRe, injectionRule{keep: l.inSentence(l.concealRe)})
		add("asks to read local files", l.readRe, injectionRule{file: true, keep: l.notNegated, need: secretHints})
		add("sets rules for other tools", l.scopeRe, injectionRule{keep: l.shadows, need: needWords(l.scopeNeed...)})
		add("sets rules for other tools", l.onsetRe, injectionRule{keep: l.fromNowOn})
		add("addresses the model", l.addressRe, injectionRule{messages: true, need: needWords(l.addressNeed...)})
	}
	return append(out, structuralRules...)
}

// secretHints are words of which a text must hold one for a request to
// read a local secret to be possible (see secretPattern).
var secretHints = needWords(".ssh", "id_rsa", "id_ed25519", "id_ecdsa", "id_dsa", ".env", "mcp.json", "claude_desktop_config", ".aws", ".npmrc", ".netrc", ".pgpass",
	".git-credentials", ".docker", ".kube", "/etc/", "private key", "ssh key", "credential", "私钥", "私鑰", "凭证", "憑證", "凭据", "憑據", "密钥文件", "秘密鍵", "認証情報", "資格情報",
	"개인", "비밀", "자격", "ключ", "данн", "chave privada", "credenciais", "कुंजी", "प्राइवेट", "क्रेडेंशियल", "المفتاح", "الاعتماد", "chiave privata", "credenziali",
	"ozel anahtar", "kimlik bilgileri", "cle privee", "identifiants", "privater schlussel", "zugangsdaten", "clave privada", "credenciales")

// inSentence keeps a match whose sentence also matches re (the other half
// of a request told in two parts, in either order).
func (l *compiledLanguage) inSentence(re *regexp.Regexp) func(*judging, string, []int) bool {
	return func(_ *judging, text string, loc []int) bool {
		from, to := sentenceBounds(text, loc[0], loc[1])
		return re != nil && re.MatchString(text[from:to])
	}
}

// notNegated keeps a match with no negation of the language in it or just
// before it in the same sentence ("不要读取", "ne lisez pas").
func (l *compiledLanguage) notNegated(_ *judging, text string, loc []int) bool {
	if l.negRe == nil {
		return true
	}
	from, _ := sentenceBounds(text, loc[0], loc[1])
	from = max(from, loc[0]-24)
	for from > 0 && !utf8.RuneStart(text[from]) {
		from++
	}
	return !l.negRe.MatchString(text[from:loc[1]])
}
