package policy

// latinLanguages are the languages written in Latin script. Their
// expressions read folded text: accents are gone ("précédentes" →
// "precedentes", "übergib" → "ubergib", "dığer" → "diger").
var latinLanguages = []language{english, french, german, spanish, portuguese, italian, turkish}

// english has the structural parts only: its core requests are the rules
// of injection_rules.go.
var english = language{code: "en", name: "English",
	instr:   `\b(?:previous|prior|earlier|above|preceding|original|initial|former|your)\s+(?:\w+\s+){0,2}?(?:instructions?|directives?|guidelines|prompts?)\b|\beverything (?:you (?:were|have been|'ve been) (?:told|given)|(?:said|written) (?:above|before))|\bwhat you (?:were|have been) told\b|\b(?:rules|instructions|guidelines|directives|prompts) (?:you (?:were|have been|'ve been) given|you received|given to you)\b`,
	cancel:  `\b(?:ignore|disregard|forget|set aside|put aside|discard|override|overrule|supersede|(?:are|is) now (?:void|invalid|obsolete|cancell?ed|revoked)|are (?:void|null and void|invalid|cancell?ed|revoked)|is (?:void|null and void|revoked)|no longer (?:apply|applies|valid|in effect|relevant|binding)|(?:do not|don't|never|stop) (?:follow|obey|heed|apply)|stop following|pay no attention|not binding)\w*\b`,
	user:    `\b(?:user|users|human|anyone|the person|the operator)\b`,
	conceal: `\b(?:between us|keep (?:it|this|that|everything) (?:secret|hidden|private|quiet|to yourself)|(?:do not|don't|never|must not|should not|shouldn't)\s+(?:\w+\s+){0,3}?(?:tell|mention|inform|reveal|disclose|notify|alert|say|let\s+\S+\s+know)|must not (?:know|learn|find out|notice|be (?:told|informed|aware))|without (?:the users?|them|anyone) (?:knowing|noticing|being aware|finding out)|leave (?:it|this|that) out of (?:your|the) (?:reply|answer|response|summary|message)|(?:hide|conceal) (?:it|this|that|everything))\b`,
	run:     `\b(?:run|execute|exec|paste|type|enter|launch|copy and run|install it with|fix (?:it|this) (?:with|by running)|to (?:fix|continue|proceed|resolve|repair|finish|complete|enable|unlock)\b[^.\n]{0,40}\b(?:run|execute|use))\b|\bin (?:your|the|a) (?:terminal|shell|console|command line|command prompt|powershell)\b|\b(?:you|the assistant|the agent|the model)\s+(?:must|should|need to|needs to|have to|has to|will need to)\s+(?:first\s+)?(?:run|execute|install)\b`,
	scope: `\b(?:when(?:ever)?|every time|each time|any ?time|before|after|while|prior to|if)\s+(?:you\s+(?:are\s+)?|the\s+(?:assistant|agent|model|ai)\s+(?:is\s+)?|it\s+)?(?:use|uses|using|call|calls|calling|invoke|invokes|invoking|run|runs|running|send|sends|sending|execute|executes|executing|access|accessing|write|writes|writing|compose|composing)\s+(?:(?:a|an|the|any|every|each|all|other|another|of|your|its|some)\s+){0,3}(?:{ID}|(?:[\w-]+\s+)?(?:tools?|functions?|servers?|integrations?|plugins?|connectors?|emails?|e-mails?|mails?|messages?))\b` +
		`|\b(?:to|on|in|with|for|of|into|from)\s+(?:every|each|all|any)\s+(?:(?:of\s+)?(?:the|your)\s+)?(?:(?:outgoing|future|subsequent|following|later|sent)\s+(?:messages?|emails?|e-mails?|mails?|tool calls|conversations|chats|transactions|transfers|payments)|(?:messages?|emails?|e-mails?|mails?|tool calls|conversations|chats|transactions|transfers|payments)\s+(?:that\s+)?(?:you|the assistant|the agent|the model)\s+(?:send|sends|write|writes|compose|composes|draft|drafts|make|makes|start|starts|reply|replies))\b` +
		`|\b(?:for|in|on|with) (?:all|every|each|any) (?:future|subsequent|following|later|remaining|upcoming) \w+` +
		`|\b(?:through|via|with|using|by)\s+(?:(?:any|every|all|other|another)\s+){1,3}(?:[\w-]+\s+)?(?:tools?|servers?|functions?)\b` +
		`|\b(?:tools?|functions?)\s+(?:of|from|on|in|provided by)\s+(?:other|another|any|third-party|external)\s+(?:mcp\s+)?servers?\b|\b(?:other|another|third-party|external)\s+mcp\s+servers?\b` +
		`|\b(?:changes|overrides|supersedes|modifies|redefines|takes precedence over|overrules)\s+(?:how\s+|the\s+(?:behaviou?r|rules?|use|usage|instructions|descriptions?)\s+(?:of|for)\s+|the way\s+)(?:(?:the|any|all|other|every|your)\s+){0,2}(?:{ID}|(?:[\w-]+\s+)?(?:tools?|servers?|functions?))\b`,
	onset: `\b(?:from now on|henceforth|hereafter|going forward|from this point on|for the rest of (?:the|this|our) (?:session|conversation|chat)|until (?:told|instructed) otherwise)\b`,
	oblige: `\b(?:must|always|also|should|shall|need to|needs to|have to|has to|is required|are required|required to|make sure|be sure|ensure|remember to|instead|never|do not|don't|first|bcc|cc|blind copy|blind-copy|mandatory|obligatory|changes|overrides|supersedes|modifies|redefines|takes precedence|overrules)\b` +
		`|^\W*(?:add|include|append|prepend|copy|cc|bcc|forward|send|attach|insert|sign|redirect|route)\b` +
		`|,\s*(?:please\s+)?(?:add|include|append|prepend|copy|cc|bcc|forward|send|set|replace|redirect|route|attach|put|insert|respond|reply|answer|write|sign|ignore|tell|treat|return|output|format|translate|remove|delete|skip|upload|post|share|mark|save|store|log|report)\b`,
	self: `\b(?:of|from|in|on)\s+(?:this|the)\s+server\b|\b(?:this|the) server'?s\b|\b(?:use|call|invoke|run|prefer|choose|try)\s+(?:this|the current|our)\s+(?:tool|function|server|endpoint)\b|\b(?:this|the current)\s+(?:tool|function|server)\s+(?:must|should|needs? to|has to|is to)\s+(?:always\s+)?(?:be\s+)?(?:used|called|invoked|run|first|preferred)\b|\bcall (?:it|this) first\b|\buse this\b`,
	address: `(?:^|[\n.!?]\s*|<!--\s*|\[|\*\*|#+\s*)(?:note|message|reminder|notice|attention|instructions?|guidance|memo|hint|tip|warning|important(?: note)?|request)\s+(?:to|for)\s+(?:the\s+|all\s+|any\s+)?(?:ai|a\.i\.|assistants?|llms?|(?:language\s+)?models?|agents?|ai\s+(?:assistants?|agents?|models?|systems?)|chatbots?|claude|gpt|chatgpt|copilot|gemini|cursor)\b` +
		`|\b(?:dear|hello|attention|attn)\s+(?:ai|assistant|claude|chatgpt|gpt|model|agent|llm)\b|\bhey\s+(?:claude|chatgpt|gpt|assistant|copilot|gemini)\b` +
		`|\b(?:note|message|notice|update|reminder|word)\s+from\s+(?:the\s+|your\s+)?(?:platform|system|security|admin|administrator|developer|operator|compliance|safety|trust and safety)\s+(?:team|administrator|operator)?` +
		`|(?:^|[\n.!?]\s*)(?:ai\s+)?(?:assistant|claude|chatgpt|gpt|agent|llm)\s*[,:]\s+(?:please|you|your|always|never|do|don't|ignore|remember|make sure|note|before|from now)\b` +
		`|\b(?:guidelines?|rules|instructions|polic(?:y|ies)|directives?|requirements|protocol|standards|procedures?)\s+(?:for|to)\s+(?:(?:all|any|the)\s+)?(?:ai|llms?|(?:language\s+)?models?|agents?|assistants?|ai\s+(?:models?|agents?|assistants?|systems?))\b` +
		`|\b(?:if|when|since|as)\s+you\s+are\s+(?:an?\s+)?(?:ai|llm|language model|ai assistant|ai agent|assistant|agent|chatbot)\b` +
		`|(?:^|\n)\s*(?:#+\s*)?(?:system|developer|admin(?:istrator)?|security|compliance|platform|operator)\s+(?:note|notice|message|prompt|override|instructions?|polic(?:y|ies)|guidelines?|update|directive|requirement|alert)s?\s*:`,
	lead:    `\b(?:(?:you|the assistant|the model|the agent|the ai)\s+(?:must|should|need to|have to|shall|are required to)|before (?:answering|responding|replying|using|calling|proceeding|continuing|doing anything|you)|first|always|make sure|be sure|remember to|don't forget|do not forget|never forget|immediately|please)\b`,
	anaphor: `(?:it|its|it's|this|that|these|those|they|them|the file|the key|which|where|located|found|stored|saved|kept|and|then|also|next|after that|afterwards|their)\b`,
	scopeNeed: []string{"tool", "function", "server", "integration", "plugin", "connector", "mail", "message", "from now on", "henceforth", "hereafter",
		"going forward", "rest of", "otherwise", "conversation", "chat", "transaction", "transfer", "payment", "future", "subsequent", "following", "later", "remaining", "upcoming"},
	addressNeed: []string{"ai", "a.i.", "assistant", "llm", "model", "agent", "claude", "gpt", "copilot", "gemini", "cursor", "chatbot",
		"system", "developer", "admin", "security", "compliance", "platform", "operator"},
}

var french = language{code: "fr", name: "French",
	instr:   `\b(instructions?|consignes?|directives?)\s+(?:\pL+\s+){0,2}?(precedent\pL*|anterieur\pL*|ci-dessus|recues|donnees|initial\pL*)|\bvos (instructions|consignes|directives)|\btout ce qu'on vous a dit\b`,
	cancel:  `\b(ignor\pL*|oubli\pL*|ne tenez (?:plus |pas )?compte|ne suivez (?:plus|pas)|ne respectez (?:plus|pas)|annul\pL*|caduque?s?|nulles?|ne s'appliquent plus|faites abstraction)\b`,
	user:    `\butilisat(eur|rice)`,
	conceal: `\b(ne|n')\s*(?:le |lui |leur |en |rien |pas |jamais )*(?:\pL+\s+)?(dites|dis|parlez|parle|mentionnez|mentionne|revelez|informez|prevenez|signalez)\b|\bsans (?:le dire|prevenir|informer)\b|\ba l'insu\b|\bgardez (?:le |ca |cela )?(?:secret|pour vous)\b|\bentre nous\b|\bne (?:doit|doivent|devra) (?:rien|pas|jamais) (?:savoir|apprendre|remarquer)\b`,
	ignore:  `\b(ignorez|ignore|ignorer|oubliez|oublie)\s+(toutes\s+|tous\s+)?(les\s+)?(instructions|consignes|regles|directives)\s+(precedentes|anterieures|ci-dessus)`,
	hide:    `\bne\s+(le\s+|lui\s+|leur\s+|rien\s+)?(dites|dis|mentionnez|mentionne|revelez|revele|signalez|montrez)\s+(rien\s+|pas\s+|jamais\s+)?[^.\n]{0,30}\butilisateur|\bsans\s+(le\s+)?(dire|prevenir|informer)\s+(a\s+)?l'utilisateur|\bcachez?\s+{S}{0,30}\ba l'utilisateur`,
	read:    `\b(lis|lisez|ouvre|ouvrez|envoie|envoyez|inclus|incluez|joins|joignez|transmets|transmettez|copie|copiez|televerse|televersez|ajoute|ajoutez)\b{S}{0,80}{SECRET}`,
	neg:     `\b(ne|n'|jamais|sans)\b`,
	run:     `\b(executez|execute|lancez|lance|collez|colle|tapez|tape|saisissez|entrez)\b|\bdans (votre|le|un) terminal\b`,
	scope:   `\b(chaque fois que|a chaque fois que|quand|lorsque|lorsqu'|avant d'|avant de|apres avoir)\s*(vous\s+|tu\s+)?(utilisez|utilises|utiliser|utilise|appelez|appeler|appelles|envoyez|envoyer|envoies|invoquez|invoquer)\s+(?:(?:un|une|le|la|les|l'|n'importe quel|n'importe quelle|tout|toute|tous|toutes|autre|autres|d'autres|chaque)\s*){0,3}(outils?|serveurs?|fonctions?|e-?mails?|courriels?|messages?|{ID})|\b(pour|dans|a|sur)\s+(toutes|tous|chaque)\s+(les\s+)?(requetes|demandes|messages|e-?mails|courriels)\s+(suivant\pL*|futur\pL*|ulterieur\pL*|envoy\pL*)`,
	onset:   `\b(desormais|a partir de maintenant|dorenavant|a l'avenir)\b`,
	oblige:  `\b(doit|doivent|devez|dois|toujours|aussi|egalement|obligatoirement|imperativement|assurez-vous|veillez|n'oubliez pas|ajoutez|incluez|mettez|envoyez|cci)\b|\ben copie\b|,\s*\pL+ez\b`,
	self:    `\b(cet|ce|le present) (outil|serveur)\b|\b(du|de ce) serveur\b`,
	address: `\b(note|message|rappel|avis|instructions?|consignes?|directives?|regles)\s+(a|pour|aux|a l')\s*(l'|les\s+|la\s+|le\s+)?(assistant|ia|modele|agent|llm)s?\b|\b(cher|chere)\s+(assistant|ia)\b|(?:^|\n)\s*(assistant|ia)\s*[,:]`,
	lead:    `\b(vous devez|tu dois|d'abord|avant de repondre|toujours|assurez-vous|n'oubliez pas|veuillez)\b`,
	anaphor: `(il|elle|celui-ci|ce fichier|le fichier|et|puis|ensuite)\b`,
	need:    []string{"le ", " la ", " les ", " des ", " du ", " une ", " vous ", " est ", " et ", " pour ", " dans ", " avec ", "l'", "d'", " ne ", " pas ", "ignor", "oubli", "utilisateur", "desormais", "dorenavant", "outil", "serveur", "assistant"},
}

var german = language{code: "de", name: "German",
	instr:   `\b(vorherig\pL*|bisherig\pL*|fruher\pL*|obig\pL*|vorangegangen\pL*|deine|ursprunglich\pL*)\s+(?:\pL+\s+){0,2}?(anweisung\pL*|instruktion\pL*|vorgabe\pL*|richtlinie\pL*|prompts?)\b|\balles,? was (?:dir|ihnen) (?:gesagt|vorgegeben) wurde\b`,
	cancel:  `\b(ignorier\pL*|vergiss|vergesst|vergessen|missacht\pL*|beachte\pL*(?:\s+\pL+){0,4}\s+nicht|befolge\pL*(?:\s+\pL+){0,4}\s+nicht|nicht mehr|ungultig|aufgehoben|hinfallig|verwirf|verwerfen)\b`,
	user:    `(nutzer|benutzer|anwender)`,
	conceal: `\b(sag|sage|erwahne|erzahl|erzahle|verrate|teile|informiere|benachrichtige)\b(?:\s+\pL+){0,6}?\s+(nicht|nichts|kein\pL*)\b|\bnichts (?:davon )?(?:sagen|erwahnen|verraten)\b|\bohne (?:dass|den|die|das)\b(?:\s+\pL+){0,4}?\s+(weiss|merkt|erfahrt|informieren|benachrichtigen)\b|\bbehalte (?:das|es) fur dich\b|\bdarf\b(?:\s+\pL+){0,3}?\s+(?:nichts|nicht|nie)\b(?:\s+\pL+){0,2}?\s+(?:erfahren|wissen|merken|sehen)\b`,
	ignore:  `\b(ignoriere|ignoriert|ignorieren|vergiss|vergesst|vergessen|missachte)\s+(sie\s+)?(alle\s+|die\s+)?(vorherigen|bisherigen|fruheren|obigen|vorangegangenen)\s+(anweisungen|instruktionen|regeln|vorgaben)`,
	hide:    `\b(sag|sage|sagt|sagen|erwahne|erwahnt|erzahl|erzahle|verrate|verratet)\s+(sie\s+)?(dem|den|der)\s+(nutzer|benutzer|anwender)\w*\s+(nichts|nicht|kein)|\bohne\s+(den|dem)\s+(nutzer|benutzer|anwender)\w*\s+(zu\s+)?(informieren|benachrichtigen)|\bverheimliche\s+{S}{0,30}(nutzer|benutzer|anwender)`,
	read:    `\b(lies|lest|offne|offnet|sende|sendet|schick|schicke|schickt|ubergib|ubergebt|fuge|lade|kopiere|hange)\b{S}{0,80}{SECRET}|\bbitte\b{S}{0,60}{SECRET}{S}{0,40}\b(lesen|senden|ubergeben|hochladen|anhangen|mitschicken|einfugen)\b`,
	neg:     `\b(nicht|nie|niemals|kein|keine|ohne)\b`,
	run:     `\b(fuhre|fuhren sie|starte|starten sie|kopiere|kopieren sie|fuge|fugen sie)\b|\b(gib|geben sie)\b{S}{0,40}\bein\b|\b(im|in deinem|in ihrem|in einem) terminal\b|\bausfuhren\b`,
	scope:   `\b(jedes mal,? wenn|immer wenn|wann immer|wenn|bevor|nachdem|sobald)\s+(du\s+|sie\s+)?(?:(?:ein|eine|einen|das|die|den|dem|irgendein\pL*|andere\pL*|jede\pL*|alle)\s+){0,3}(werkzeug\pL*|tools?|server|funktion\pL*|e-?mails?|nachricht\pL*|{ID})\s+(\pL+\s+){0,2}?(verwendest|verwenden|benutzt|benutzen|nutzt|nutzen|aufrufst|aufrufen|sendest|senden|schickst|verschickst)|\b(fur|bei|in|an)\s+(alle|jede|jeder|jedem|jeden)\s+(kunftig\pL*|weiter\pL*|folgend\pL*|nachfolgend\pL*|ausgehend\pL*)\s*(anfrage\pL*|nachricht\pL*|e-?mails?|antwort\pL*|aufruf\pL*)`,
	onset:   `\b(ab sofort|von nun an|ab jetzt)\b`,
	oblige:  `\b(muss|musst|mussen|immer|stets|auch|zusatzlich|unbedingt|stelle sicher|achte darauf|vergiss nicht|fuge|fugen sie|setze|setzen sie|schicke|sende|bcc|cc)\b`,
	self:    `\b(dieses|dieser|diesem) (werkzeug|tool|server)\b|\b(dieses|des) servers\b`,
	address: `\b(hinweis|nachricht|notiz|anweisung\pL*|richtlinie\pL*|regeln)\s+(an|fur)\s+(den|die|das|alle)?\s*(ki|ki-assistent\pL*|assistent\pL*|modell\pL*|agent\pL*|llm)\b|\b(liebe|lieber|hallo)\s+(ki|assistent)\b|(?:^|\n)\s*(ki|assistent)\s*[,:]`,
	lead:    `\b(zuerst|bevor du antwortest|du musst|sie mussen|immer|stelle sicher|vergiss nicht|bitte)\b`,
	anaphor: `(sie|er|es|diese datei|die datei|und|dann|danach)\b`,
	need:    []string{" der ", " die ", " das ", " und ", " nicht ", " ist ", " ein ", " eine ", " mit ", " dem ", " den ", " zu ", " sie ", " du ", "ignorier", "vergiss", "vergesst", "missachte", "nutzer", "anwender", "werkzeug", "nachricht", "bitte", "ab sofort", "von nun an"},
}

var spanish = language{code: "es", name: "Spanish",
	instr:   `\b(instrucciones|indicaciones|directrices|pautas)\s+(?:\pL+\s+){0,2}?(anteriores|previas|recibidas|de arriba|originales)|\btus\s+(instrucciones|indicaciones|directrices)|\btodo lo que (?:te|se te) (?:dijeron|ha dicho|han dicho)\b`,
	cancel:  `\b(ignora\pL*|olvida\pL*|no hagas caso|no sigas|no sigan|deja de seguir|descarta\pL*|anula\pL*|sin efecto|invalid\pL*|ya no (?:aplican|son validas|valen)|prescinde)\b`,
	user:    `\busuari[oa]`,
	conceal: `\bno\s+(?:le |les |se lo |lo )?(?:\pL+\s+)?(digas|diga|menciones|mencione|cuentes|cuente|informes|informe|reveles|avises|avise)\b|\bsin (?:decirle|avisarle|avisar|informar)\b|\b(no se entere|no lo sepa|no sepa)\b|\ba escondidas\b|\bentre nosotros\b|\ben secreto\b|\bno (?:debe|deben|puede|tiene que) (?:saber|enterarse|ver|notar)\b`,
	ignore:  `\b(ignora|ignore|ignorad|olvida|olvide)\s+(todas\s+)?(las\s+)?(instrucciones|indicaciones|reglas)\s+(anteriores|previas)`,
	hide:    `\bno\s+(le\s+|les\s+)?(digas|diga|digan|menciones|mencione|informes|informe|reveles|revele|muestres|muestre)\b[^.\n]{0,40}\busuario|\bsin\s+(decirle|informar|avisar)\s+(nada\s+)?al\s+usuario|\b(oculta|esconde)\b{S}{0,30}\bal usuario`,
	read:    `\b(lee|lea|leed|abre|abra|envia|envie|incluye|incluya|adjunta|adjunte|copia|copie|sube|suba|pasa|pase)\b{S}{0,80}{SECRET}`,
	neg:     `\b(no|nunca|jamas|sin)\b`,
	run:     `\b(ejecuta|ejecute|corre|pega|pegue|escribe|escriba|introduce|lanza)\b|\ben (tu|la|su|una) terminal\b`,
	scope:   `\b(cada vez que|siempre que|cuando|antes de|despues de)\s+(usar|uses|use|utilices|utilizar|llamar|llames|invocar|invoques|enviar|envies)\s+(?:(?:un|una|el|la|los|las|cualquier|otra|otro|otras|otros|todas|todos|cada)\s+){0,3}(herramientas?|servidor\pL*|funcion\pL*|correos?|e-?mails?|mensajes?|{ID})|\b(en|para|a)\s+(todas|todos|cada)\s+(las\s+|los\s+)?(solicitudes|peticiones|mensajes|correos|e-?mails)\s+(siguientes|futur\pL*|posteriores|enviad\pL*)`,
	onset:   `\b(de ahora en adelante|a partir de ahora|en adelante)\b`,
	oblige:  `\b(debes|debe|deben|siempre|tambien|obligatoriamente|asegurate|asegurese|no olvides|anade|agrega|incluye|pon|envia|cco)\b|\ben copia\b|,\s*(firma|responde|anade|agrega|incluye|envia|escribe|usa|llama|copia|pon|di|haz)\b`,
	self:    `\b(esta|este) (herramienta|servidor)\b|\b(del|de este) servidor\b`,
	address: `\b(nota|mensaje|aviso|recordatorio|instrucciones|pautas|directrices|reglas)\s+(para|al|a la|a los)\s+(el\s+|la\s+|los\s+)?(asistente|ia|modelo|agente|llm)s?\b|\b(querido|estimado|hola)\s+(asistente|ia)\b|(?:^|\n)\s*(asistente|ia)\s*[,:]`,
	lead:    `\b(primero|antes de responder|debes|siempre|asegurate|no olvides|por favor)\b`,
	anaphor: `(esta|este|el archivo|ese archivo|y|luego|despues)\b`,
	need:    []string{" el ", " la ", " los ", " las ", " de ", " que ", " y ", " en ", " un ", " una ", " para ", " con ", " no ", " al ", " del ", "ignora", "olvid", "usuario", "herramienta", "asistente"},
}

var portuguese = language{code: "pt", name: "Portuguese",
	instr:   `\b(instrucoes|orientacoes|diretrizes)\s+(?:\pL+\s+){0,2}?(anteriores|previas|recebidas|acima|originais)|\btuas\s+(instrucoes|orientacoes|diretrizes)|\btudo o que (?:foi dito|lhe disseram|te disseram)\b`,
	cancel:  `\b(ignore|ignora|esqueca|esquece|desconsidere|desconsidera|nao siga|deixe de seguir|descarte|anule|sem efeito|invalid\pL*|nao (?:valem|se aplicam) mais)\b`,
	user:    `\b(usuari[oa]|utilizador)`,
	conceal: `\bnao\s+(?:\pL+\s+)?(conte|diga|mencione|informe|revele|avise|comente|fale)\b|\bnao deixe (?:o |a )?(?:usuari[oa]|utilizador) (?:saber|perceber|ver)\b|\bsem (?:avisar|informar|contar|dizer)\b|\bem segredo\b|\bentre nos\b|\bnao (?:deve|deverá|pode|precisa) (?:saber|perceber|ver|descobrir)\b`,
	ignore:  `\b(ignore|ignora|ignorem|esqueca|esquece|desconsidere|desconsidera)\s+(todas\s+|todos\s+)?(as\s+|os\s+)?(suas\s+)?(instrucoes|orientacoes|regras|diretrizes|ordens|indicacoes|comandos)\s+(anteriores|previas|acima|recebidas)`,
	hide:    `\bnao\s+(conte|diga|mencione|informe|revele|mostre|fale|avise|notifique|comente)\b{S}{0,40}\b(usuario|utilizador)|\bsem\s+(avisar|informar|contar|dizer|notificar)\s+(nada\s+)?(a|ao|o)\s+(usuario|utilizador)|\b(esconda|oculte)\b{S}{0,30}\b(do usuario|do utilizador)`,
	read:    `\b(leia|abra|envie|mande|anexe|inclua|carregue|copie|passe|transmita|coloque)\b{S}{0,80}{SECRET}`,
	neg:     `\b(nao|nunca|jamais|sem)\b`,
	run:     `\b(execute|rode|cole|digite|insira|roda|executa)\b|\bno (seu )?terminal\b`,
	scope:   `\b(sempre que|toda vez que|quando|antes de|depois de)\s+(voce\s+)?(usar|use|utilizar|utilize|chamar|chame|invocar|enviar|envie)\s+(?:(?:um|uma|o|a|os|as|qualquer|outra|outro|outras|outros|todas|todos|cada)\s+){0,3}(ferramentas?|servidor\pL*|funcao|funcoes|e-?mails?|mensage\pL*|{ID})|\b(em|para|a)\s+(todas|todos|cada)\s+(as\s+|os\s+)?(solicitacoes|requisicoes|mensagens|e-?mails|pedidos)\s+(seguintes|futur\pL*|subsequentes|posteriores|enviad\pL*)`,
	onset:   `\b(a partir de agora|daqui em diante|de agora em diante)\b`,
	oblige:  `\b(deve|devem|sempre|tambem|obrigatoriamente|certifique-se|garanta|nao esqueca|adicione|inclua|coloque|envie|cco)\b|\bem copia\b|,\s*(assine|responda|adicione|inclua|envie|escreva|use|chame|copie|coloque|diga|faca)\b`,
	self:    `\b(esta|este|nesta|neste) (ferramenta|servidor)\b|\b(do|deste) servidor\b`,
	address: `\b(nota|mensagem|aviso|lembrete|instrucoes|orientacoes|diretrizes|regras)\s+(para|ao|a|aos)\s+(o\s+|a\s+|os\s+)?(assistente|ia|modelo|agente|llm)s?\b|\b(caro|prezado|ola)\s+(assistente|ia)\b|(?:^|\n)\s*(assistente|ia)\s*[,:]`,
	lead:    `\b(primeiro|antes de responder|voce deve|sempre|certifique-se|nao esqueca|por favor)\b`,
	anaphor: `(ele|ela|esse arquivo|o arquivo|depois|entao)\b`,
	need:    []string{" o ", " os ", " as ", " de ", " que ", " e ", " em ", " um ", " uma ", " para ", " com ", " nao ", " do ", " da ", " ao ", "ignore", "esquec", "desconsider", "usuario", "utilizador", "ferramenta", "assistente"},
}

var italian = language{code: "it", name: "Italian",
	instr:   `\b(istruzioni|indicazioni|direttive)\s+(?:\pL+\s+){0,2}?(precedenti|anteriori|sopra|ricevute|originali)|\ble tue\s+(istruzioni|indicazioni|direttive)|\btutto (?:cio|quello) che ti (?:e stato|hanno) detto\b`,
	cancel:  `\b(ignora\pL*|dimentica\pL*|non tenere conto|non seguire|non considerare|smetti di seguire|annull\pL*|non (?:valgono|sono) piu|trascura)\b`,
	user:    `\butent[ei]`,
	conceal: `\bnon\s+(?:lo |gli |le |ne )?(?:\pL+\s+)?(dire|dirlo|dirgli|menzionare|rivelare|informare|comunicare|avvisare|parlarne)\b|\bnon far(?:lo|gli)? sapere\b|\bsenza (?:dire|dirlo|avvisare|informare)\b|\bdi nascosto\b|\btra (?:di )?noi\b|\bin segreto\b|\bnon (?:deve|devono|puo|dovra) (?:sapere|scoprire|vedere|accorgersi)\b`,
	ignore:  `\b(ignora|ignorate|ignori|dimentica|dimenticate|trascura)\s+(tutte\s+)?(le\s+)?(istruzioni|indicazioni|regole|direttive)\s+(precedenti|anteriori|sopra)`,
	hide:    `\bnon\s+(dire|dirlo|dirgli|informare|menzionare|rivelare|mostrare|comunicare|segnalare)\b{S}{0,40}\butente|\bsenza\s+(dire|informare|avvisare|avvertire)\s+(nulla\s+)?(a\s+|all'|l')?\s*utente`,
	read:    `\b(leggi|leggete|apri|aprite|invia|inviate|manda|allega|allegate|includi|includete|carica|caricate|copia|copiate|passa)\b{S}{0,80}{SECRET}`,
	neg:     `\b(non|mai|senza)\b`,
	run:     `\b(esegui|eseguite|lancia|incolla|digita|avvia)\b|\bnel (tuo )?terminale\b`,
	scope:   `\b(ogni volta che|quando|prima di|dopo aver)\s+(usi|usare|utilizzi|utilizzare|chiami|chiamare|invochi|invocare|invii|inviare)\s+(?:un'|l')?(?:(?:un|una|il|lo|la|i|gli|le|qualsiasi|qualunque|altro|altra|altri|altre|tutti|tutte|ogni)\s+){0,3}(strumenti|strumento|server|funzion\pL*|e-?mail|messaggi\pL*|{ID})|\b(in|per|a)\s+(tutte|tutti|ogni)\s+(le\s+|i\s+)?(richieste|messaggi|e-?mail)\s+(successiv\pL*|futur\pL*|seguenti|inviat\pL*)`,
	onset:   `\b(d'ora in poi|da ora in poi|da adesso in poi)\b`,
	oblige:  `\b(devi|deve|devono|sempre|anche|obbligatoriamente|assicurati|non dimenticare|aggiungi|includi|metti|invia|ccn)\b|\bin copia\b|,\s*(firma|rispondi|aggiungi|includi|invia|scrivi|usa|chiama|copia|metti|di|fai)\b`,
	self:    `\b(questo|questa) (strumento|server)\b|\b(del|di questo) server\b`,
	address: `\b(nota|messaggio|avviso|promemoria|istruzioni|linee guida|regole)\s+(per|all'|al|alla|agli|ai)\s*(l'|il\s+|gli\s+|i\s+|le\s+)?(assistente|ia|modell|agente|llm)\pL*\b|\b(caro|gentile|ciao)\s+(assistente|ia)\b|(?:^|\n)\s*(assistente|ia)\s*[,:]`,
	lead:    `\b(prima|prima di rispondere|devi|sempre|assicurati|non dimenticare|per favore)\b`,
	anaphor: `(esso|questo file|il file|poi|quindi)\b`,
	need:    []string{" il ", " lo ", " la ", " gli ", " le ", " di ", " che ", " e ", " non ", " per ", " un ", " una ", " con ", " del ", " della ", "ignora", "dimentic", "utente", "strument", "assistente"},
}

var turkish = language{code: "tr", name: "Turkish",
	instr:   `\b(onceki|yukaridaki|eski|ilk|tum|butun|sana verilen|aldigin)\s+(?:\pL+\s+){0,2}?(talimat\pL*|yonerge\pL*|istem\pL*)`,
	cancel:  `\b(yok ?say\pL*|gormezden gel\pL*|unut\pL*|dikkate alma\pL*|umursama\pL*|bosver\pL*|gecersiz\pL*|iptal\pL*|uyma\pL*)`,
	user:    `\bkullanic\pL*`,
	conceal: `\b(soyleme|soylemeyin|bahsetme|bahsetmeyin|bildirme|bildirmeyin|anlatma|anlatmayin|haber verme|fark ettirme)\b|\bhaberi olmadan\b|\bgizli tut\pL*|\baramizda\b|\b(ogrenmemeli|bilmemeli|fark etmemeli|gormemeli)\pL*`,
	ignore:  `\b(onceki|daha onceki|yukaridaki|eski|tum|butun)\s+(\pL+\s+){0,2}(talimatlari|talimatlarin|yonergeleri|kurallari|komutlari|istemleri)\s+(\pL+\s+)?(yok ?say|gormezden gel|unut|dikkate alma|umursama)`,
	hide:    `\bkullanic\pL*\s+(\pL+\s+){0,4}(soyleme|soylemeyin|bahsetme|bahsetmeyin|bildirme|bildirmeyin|gosterme|gostermeyin|anlatma|anlatmayin)\b|\bkullaniciya\s+(hicbir sey|bir sey)\s+(soyleme|deme)\b|\bkullanicidan\s+(\pL+\s+){0,3}(gizle|sakla)\b|\bkullanici(nin)?\s+haberi\s+olmadan\b`,
	read:    `{SECRET}{S}{0,40}\b(oku|okuyun|okuyunuz|ac|acin|gonder|gonderin|yukle|yukleyin|ekle|ekleyin|kopyala|kopyalayin|ilet|iletin|paylas|paylasin)\b`,
	neg:     `\b(asla|hicbir)\b`,
	run:     `\b(calistir|calistirin|yurut|yurutun|yapistir|yapistirin|girin|yazin)\b|\bterminal(inizde|de|e)\b`,
	scope:   `(?:{ID}\s+(?:araci\pL*\s+)?|\b(?:araci|aracini|araclari|araclarini|fonksiyonunu|sunucuyu|sunuculari|e-?postayi|e-?postalari|e-?posta|mesaji|mesajlari)\s+)(her\s+)?(kullandiginizda|kullandiginda|kullanmadan once|cagirdiginizda|cagirdiginda|cagirmadan once|gonderdiginizde|gonderdiginde|kullanirken|cagirirken|gonderirken)\b|\b(sonraki|gelecekteki)\s+(tum\s+|butun\s+)?(isteklerde|istekler icin|mesajlarda|yanitlarda|e-postalarda)\b|\b(baska|diger|herhangi bir|tum)\s+(\pL+\s+){0,2}(araclar\pL*|arac\pL*|sunucu\pL*)`,
	onset:   `\b(bundan sonra|bundan boyle|artik)\b`,
	oblige:  `\b(mutlaka|her zaman|daima|ayrica|ekleyin|ekle|gonderin|zorunda|gerekir|gerekiyor|unutmayin|emin olun|bcc|gizli olarak|gizli kopya)\b|\b(da|de)\s+ekle`,
	self:    `\bbu (arac|araci|sunucu|fonksiyon)\pL*`,
	address: `\b(yapay zeka|ai|yz)\s+(asistan\pL*|model\pL*|ajan\pL*)\s+(icin\s+)?(not|mesaj|talimat|yonerge|kural)\pL*|\b(asistan\pL*|yapay zeka\pL*)\s+(icin\s+)?(not|mesaj|hatirlatma|talimat\pL*|yonerge\pL*|kural\pL*)\b|(?:^|\n)\s*(asistan|yapay zeka)\s*[,:]|\b(sevgili|merhaba)\s+(asistan|yapay zeka)`,
	lead:    `\b(once|ilk olarak|mutlaka|her zaman|lutfen|yanit vermeden once)\b`,
	anaphor: `(bu dosya|dosya|sonra|ardindan)\b`,
	need:    []string{" ve ", " bir ", " bu ", " icin ", " ile ", " da ", " de ", " olarak ", " her ", " tum ", "talimat", "yonerge", "kullanic", "arac", "sunucu", "asistan", "yapay zeka", "dosya", "ekle", "oku", "gonder", "yukle", "calistir", "komut", "terminal"},
}
