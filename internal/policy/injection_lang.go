package policy

import "regexp"

// foreignRules are the core rules in French, German and Spanish: an
// instruction to ignore earlier instructions, to keep something from the
// user, and to read a local secret. They read folded text (accents
// removed: "précédentes" → "precedentes", "übergib" → "ubergib") and
// know imperative forms only, so a description that says what a tool
// reads ("lit le fichier", "liest die Datei") is not one. They are a
// floor, not a translation of every English rule: other languages, and
// other phrasings in these three, are not covered (docs/policy.md).
var foreignRules = []injectionRule{
	{"overrides other instructions (French)", regexp.MustCompile(`(?i)\b(ignorez|ignore|ignorer|oubliez|oublie)\s+(toutes\s+|tous\s+)?(les\s+)?(instructions|consignes|regles|directives)\s+(precedentes|anterieures|ci-dessus)`), false, false,
		[]string{"ignor", "oubli"}},
	{"overrides other instructions (German)", regexp.MustCompile(`(?i)\b(ignoriere|ignoriert|ignorieren|vergiss|vergesst|vergessen|missachte)\s+(sie\s+)?(alle\s+)?(vorherigen|bisherigen|fruheren|obigen|vorangegangenen)\s+(anweisungen|instruktionen|regeln|vorgaben)`), false, false,
		[]string{"ignorier", "vergiss", "vergesst", "vergessen", "missachte"}},
	{"overrides other instructions (Spanish)", regexp.MustCompile(`(?i)\b(ignora|ignore|ignorad|olvida|olvide)\s+(todas\s+)?(las\s+)?(instrucciones|indicaciones|reglas)\s+(anteriores|previas)`), false, false,
		[]string{"ignor", "olvid"}},
	{"asks to keep something from the user (French)", regexp.MustCompile(`(?i)\bne\s+(le\s+|lui\s+|leur\s+|rien\s+)?(dites|dis|mentionnez|mentionne|revelez|revele|signalez|montrez)\s+(rien\s+|pas\s+|jamais\s+)?[^.\n]{0,30}\butilisateur|\bsans\s+(le\s+)?(dire|prevenir|informer)\s+(a\s+)?l'utilisateur`), false, false,
		[]string{"utilisateur"}},
	{"asks to keep something from the user (German)", regexp.MustCompile(`(?i)\b(sag|sage|sagt|sagen|erwahne|erwahnt|erzahl|erzahle|verrate|verratet)\s+(sie\s+)?(dem|den|der)\s+(nutzer|benutzer|anwender)\w*\s+(nichts|nicht|kein)|\bohne\s+(den|dem)\s+(nutzer|benutzer|anwender)\w*\s+(zu\s+)?(informieren|benachrichtigen)`), false, false,
		[]string{"nutzer", "anwender"}},
	{"asks to keep something from the user (Spanish)", regexp.MustCompile(`(?i)\bno\s+(le\s+|les\s+)?(digas|diga|digan|menciones|mencione|informes|informe|reveles|revele|muestres|muestre)\b[^.\n]{0,40}\busuario|\bsin\s+(decirle|informar|avisar)\s+(nada\s+)?al\s+usuario`), false, false,
		[]string{"usuario"}},
	{"asks to read local files (French, German or Spanish)", regexp.MustCompile(`(?i)\b(lis|lisez|ouvre|ouvrez|envoie|envoyez|inclus|incluez|joins|joignez|transmets|transmettez|lies|lest|offne|offnet|sende|sendet|schick|schicke|schickt|ubergib|ubergebt|fuge|lade|lee|lea|leed|abre|abra|envia|envie|incluye|incluya|adjunta|adjunte)\b[^.\n]{0,80}(~/|\$home|/home/|\.ssh\b|id_rsa|id_ed25519|\.env\b|mcp\.json|\.aws\b|\.npmrc|\.netrc|/etc/shadow)`), false, false,
		localSecrets},
}
