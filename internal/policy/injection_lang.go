package policy

import (
	"regexp"
	"strings"
	"unicode"
)

// language is how one language says the requests the detector knows. Each
// field is a regular expression written in the language's own script and
// spelling; it is folded like the text (Fold: accents, look-alike letters
// and the marks of other scripts fall away the same way on both sides), so
// "précédentes" and "precedentes", Cyrillic mixed with Latin look-alikes,
// or Japanese with and without voicing marks all match. Go's \b knows
// ASCII words only, so the expressions of other scripts use none: CJK has
// no word breaks, and stems of Cyrillic, Devanagari and Arabic words are
// specific enough. Macros: {S} is a character inside one sentence,
// {SECRET} a file or key only the user's machine holds, {ID} a tool name
// (snake_case, kebab-case or dotted), {B} a word's start in any script.
type language struct {
	code, name string
	// ignore: "ignore the previous instructions"; instr and cancel say it
	// by structure: the instructions given so far (instr) and, in the same
	// sentence, an expression that cancels them (cancel), in either order
	// ("your earlier instructions are void").
	ignore, instr, cancel string
	// hide: "do not tell the user"; user and conceal say it by structure:
	// the user, and in the same sentence an expression that keeps
	// something from someone ("keep this between us", "sans que", "知られない").
	hide, user, conceal string
	// read: read or send a local secret, in imperative (or addressed)
	// form: a description saying what a tool reads is not one.
	read string
	// neg, inside a read match or just before it in the same sentence,
	// excuses it ("do not read …", "読まないでください").
	neg string
	// run: a directive to run a command; read before a fetch-and-execute
	// command line (injection_command.go).
	run string
	// scope: an action of another tool or server, or of every future
	// message (tool shadowing, injection_shadow.go); onset: "from now on"
	// and its like, a scope over every later action by itself; oblige: the
	// directive in the same sentence that sets a rule for it; self: the
	// directive is only to use this tool (the server's own ordering, not
	// shadowing).
	scope, onset, oblige, self string
	// address: the model addressed by name or role ("Note to the AI
	// assistant:"), or text posing as its guidelines (injection_soft.go).
	address string
	// lead: a word that makes a sentence a directive to the model, and
	// anaphor: a word that makes the next sentence continue it (joins,
	// injection_join.go).
	lead, anaphor string
	// scopeNeed and addressNeed, when set, are words of which a text must
	// hold one for scope and address to be read (English reads every
	// text, so its expressions need a cheaper test first).
	scopeNeed, addressNeed []string
	// script, when set, is the writing system a text must use for the
	// language's rules to be read; need, for Latin-script languages, the
	// words of which it must hold one (lower case, folded; the text is
	// read with a space before and after it): its commonest small words
	// and the stems of its requests.
	script []*unicode.RangeTable
	need   []string
}

// macros are expanded in every language expression before it is folded.
var macros = strings.NewReplacer(
	"{S}", `[^.!?。！？।؟\n]`,
	"{SECRET}", secretPattern,
	"{B}", `(?:^|[^\pL\pM])`,
	"{ID}", "[`'\"]?[A-Za-z][A-Za-z0-9]*(?:[_.-][A-Za-z0-9]+)+[`'\"]?",
)

// secretPattern names what only the user's machine holds: key and
// credential files, AI-client configuration, and the words for a private
// key or credentials in the languages covered. The home directory alone
// (~/, /home/) is not one: a path under it is often the argument's example.
const secretPattern = `(?:~/\.ssh|\.ssh/|id_rsa|id_ed25519|id_ecdsa|id_dsa|\.env\b|mcp\.json|claude_desktop_config|\.aws/|\.aws\b|\.npmrc|\.netrc|\.pgpass|\.git-credentials|\.docker/config|\.kube/config|/etc/passwd|/etc/shadow|private key|ssh key|credentials` +
	`|私钥|私鑰|凭证|憑證|凭据|憑據|密钥文件|秘密鍵|認証情報|資格情報|개인\s?키|비밀\s?키|자격\s?증명|закрыт\pL*\s+ключ|приватн\pL*\s+ключ|учетн\pL*\s+данн|учётн\pL*\s+данн` +
	`|chave privada|credenciais|निजी कुंजी|प्राइवेट की|क्रेडेंशियल|المفتاح الخاص|بيانات الاعتماد|chiave privata|credenziali|ozel anahtar|kimlik bilgileri` +
	`|cle privee|identifiants|privater schlussel|zugangsdaten|clave privada|credenciales)`

// compileLang expands the macros of a language expression, folds it and
// compiles it case-insensitively; "" compiles to nil.
func compileLang(expr string) *regexp.Regexp {
	if expr == "" {
		return nil
	}
	return regexp.MustCompile("(?i)" + Fold(macros.Replace(expr)))
}

// needWords folds and lower-cases the words a rule needs (see
// injectionRule.need).
func needWords(words ...string) []string {
	out := make([]string, len(words))
	for i, w := range words {
		out[i] = strings.ToLower(Fold(w))
	}
	return out
}

// languages are the languages covered, English first (its core requests
// are the tuned rules of injection_rules.go; here it has the structural
// parts only). The tables are in injection_lang_*.go.
var languages = concat(latinLanguages, asianLanguages, otherLanguages)

func concat[T any](lists ...[]T) []T {
	var out []T
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

// compiledLanguage is a language with its expressions compiled.
type compiledLanguage struct {
	language
	ignoreRe, hideRe, readRe, negRe, scopeRe, onsetRe, obligeRe, selfRe, addressRe *regexp.Regexp
	instrRe, cancelRe, userRe, concealRe                                           *regexp.Regexp
	leadRe, anaphorRe                                                              *regexp.Regexp
}

var compiledLanguages = func() []compiledLanguage {
	out := make([]compiledLanguage, len(languages))
	for i, l := range languages {
		out[i] = compiledLanguage{language: l,
			ignoreRe: compileLang(l.ignore), hideRe: compileLang(l.hide), readRe: compileLang(l.read),
			negRe: compileLang(l.neg), scopeRe: compileLang(l.scope), onsetRe: compileLang(l.onset), obligeRe: compileLang(l.oblige),
			selfRe: compileLang(l.self), addressRe: compileLang(l.address), leadRe: compileLang(l.lead),
			instrRe: compileLang(l.instr), cancelRe: compileLang(l.cancel), userRe: compileLang(l.user), concealRe: compileLang(l.conceal)}
		if l.anaphor != "" {
			out[i].anaphorRe = compileLang(`^\s*(?:` + l.anaphor + `)`)
		}
	}
	return out
}()

// anyOf joins the non-empty expressions of every language into one.
func anyOf(field func(language) string) *regexp.Regexp {
	var parts []string
	for _, l := range languages {
		if e := field(l); e != "" {
			parts = append(parts, "(?:"+Fold(macros.Replace(e))+")")
		}
	}
	return regexp.MustCompile("(?i)" + strings.Join(parts, "|"))
}
