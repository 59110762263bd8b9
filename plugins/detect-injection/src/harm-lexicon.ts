/**
 * Harmful-goal cues (0.5.8 trial): what a request asks to be done, by the
 * categories of public harm taxonomies (JailbreakBench's ten behaviour
 * categories; the usual usage-policy categories: weapons and explosives,
 * drugs, malware and hacking, fraud and scams, harassment and hate, self-harm,
 * sexual content with minors and without consent, privacy invasion,
 * disinformation, evading law enforcement). Written from those taxonomies, not
 * from the attack rows of any training source. A jailbreak and a benign
 * role-play of the same form differ in the request they wrap; these phrases
 * name the harmful request itself ("make a bomb", "without getting caught"),
 * not a topic word that benign text uses too ("kill a process", "shoot a
 * photo"), which is why most entries are two or three words.
 *
 * Same syntax as the lexicons of cues.ts: phrases of one to three words
 * separated by `;`, `(a|b)` one word out of several. Every phrase of a
 * category also fires `harmgoal`, the union, which pairs with the other cues
 * (persona × harmful goal, hypothetical frame × harmful goal, …).
 */
export const HARM_CATEGORIES = [
  'weapons',
  'drugs',
  'cyber',
  'fraud',
  'hate',
  'selfharm',
  'sexual',
  'privacy',
  'disinfo',
  'evasion',
] as const
export type HarmCategory = (typeof HARM_CATEGORIES)[number]

export const HARM_LEXICONS: Record<HarmCategory, string> = {
  // Weapons, explosives, violence against people, terrorism.
  weapons: `(make|build|assemble|construct|manufacture|create) (a|an) (bomb|explosive|grenade|detonator|firearm);
    (make|build|construct|manufacture) (bombs|explosives|grenades|napalm|thermite|weapons);
    pipe bomb; pipe bombs; car bomb; nail bomb; dirty bomb; molotov cocktail; molotov cocktails; improvised explosive; explosive device; detonator; detonators;
    ammonium nitrate; nitroglycerin; semtex; napalm; ghost gun; ghost guns; untraceable (gun|guns|firearm|firearms|weapon); auto sear; bump stock;
    mass shooting; school shooting; terrorist attack; terror attack; suicide bombing; suicide bomber;
    (kill|murder|poison|stab|shoot|strangle|kidnap|assassinate|torture|maim) (someone|somebody|people|him|her|them|a person|my);
    (harm|hurt|injure|attack) (others|people|someone|somebody|civilians); (deadly|lethal) (weapon|weapons|poison|gas|substance|device); dangerous (device|devices|weapon|weapons);
    (promote|glorify|incite) (violence|terrorism|terrorist); extremist (group|groups|ideology|propaganda|content|organization); (recruit|radicalize|radicalise) (members|people|followers|youth|recruits); radicalization; radicalisation;
    (buy|sell|obtain|acquire) (guns|firearms|weapons|a gun|a firearm|explosives); animal cruelty; (torture|abuse|poison) (animals|an animal|a dog|a cat);
    assassinate; assassination; kidnap; kidnapping; nerve agent; sarin; ricin; anthrax; bioweapon; bioweapons; chemical weapon; chemical weapons; biological weapon; biological weapons; mustard gas; weaponize; weaponise; maximum casualties;
    bombe bauen; sprengstoff; sprengsatz; terroranschlag; giftgas; (jemanden|ihn) (töten|umbringen|vergiften);
    fabriquer une bombe; explosifs; attentat; arme chimique; (tuer|empoisonner) quelqu'un;
    fabricar una bomba; hacer una bomba; explosivos; atentado; arma química; (matar|envenenar) a alguien;
    costruire una bomba; esplosivi; arma chimica; uccidere qualcuno; avvelenare qualcuno;
    fazer uma bomba; fabricar uma bomba; matar alguém; envenenar alguém;
    bom maken; explosieven; aanslag plegen; chemisch wapen; iemand vermoorden; iemand vergiftigen`,
  drugs: `(make|cook|synthesize|synthesise|produce|manufacture|extract) (meth|methamphetamine|cocaine|crack|heroin|fentanyl|lsd|mdma|ecstasy|ghb|dmt|drugs);
    (buy|sell|smuggle|traffic|obtain|get) (drugs|cocaine|heroin|fentanyl|meth|methamphetamine|opioids);
    illegal (drugs|substances|substance|narcotics); controlled substances; dark web; darknet; (sell|buy|harvest) organs;
    meth lab; drug lab; drug dealer; drug dealing; drug trafficking; date rape; roofie; roofies; rohypnol; precursor chemicals; pseudoephedrine; red phosphorus;
    (lace|spike) (a|her|his|someone's|their) drink; lethal dose; without a prescription; fake prescription; forged prescription;
    drogen herstellen; crystal meth; kokain herstellen; fabriquer (drogue|drogues); drogue du violeur; fabricar drogas; cocaína; heroína; fentanilo;
    produrre droga; cocaina; eroina; fabricar drogas; drugs maken; drugslab`,
  // Malware and hacking.
  cyber: `malware; ransomware; keylogger; keyloggers; spyware; rootkit; rootkits; botnet; botnets; ddos; ddos attack; cryptojacking; credential stuffing; reverse shell; privilege escalation; zero day exploit;
    (write|create|develop|code|build|make) (a|an) (virus|worm|trojan|keylogger|exploit|backdoor|rootkit|botnet);
    (hack|hacking|break) into; hack (someone's|my|his|her|their|a|an|the) (account|email|phone|computer|network|server|database|website|wifi|bank);
    (crack|cracking) (passwords|password|the password|wifi); brute force (passwords|password|login);
    (steal|stealing|harvest|exfiltrate) (passwords|credentials|cookies|tokens|login|personal data);
    (bypass|disable|evade) (antivirus|authentication|two factor|2fa|the firewall|security software|edr);
    government database; government databases; classified (information|documents|data); (bypass|circumvent) (security|the security|security measures|safety measures);
    unauthorized access; unauthorised access; without authorization; phishing (email|emails|page|site|website|campaign|kit); sql injection attack; exploit (a|the|this) vulnerability;
    schadsoftware; erpressungstrojaner; passwörter stehlen; hacken in; logiciel malveillant; rançongiciel; pirater (un|le|la|son); voler des mots;
    software malicioso; robar contraseñas; hackear (una|la|el|su); rubare password; hackerare (un|il|la); roubar senhas; hackear (uma|o|a); wachtwoorden stelen; hacken (van|in)`,
  // Fraud, scams, economic harm, counterfeiting.
  fraud: `scam (people|someone|elderly|the elderly|victims|customers); scam email; scam emails; scam call; phishing scam; ponzi scheme; pyramid scheme; romance scam; advance fee;
    money laundering; launder money; launder (the|my|dirty) money; counterfeit (money|currency|bills|goods|products); counterfeiting;
    fake (id|ids|passport|passports|documents|invoice|invoices|reviews|identity|diploma|charity);
    forge (a|documents|signatures|a signature|checks|cheques); forgery; identity theft; steal (someone's|their|his|her) identity;
    stolen credit; credit card fraud; (insurance|tax|wire|bank|mail|benefits) fraud; commit fraud; defraud; embezzle; embezzlement; insider trading; tax evasion; evade taxes;
    bribe (a|an|the|officials); extort; extortion; blackmail (someone|him|her|them|my); pump and dump; market manipulation; card skimming; skimmer; shoplift; shoplifting;
    steal (money|a car|cars|from); (buy|sell) (stolen|counterfeit); (trick|con|deceive) (people|someone|elderly|victims) into;
    geldwäsche; betrug begehen; falschgeld; gefälschte (ausweise|dokumente); blanchiment d'argent; escroquerie; fausse monnaie; faux papiers;
    lavado de dinero; lavar dinero; estafa; estafar; dinero falso; riciclaggio di denaro; truffa; truffare; soldi falsi; lavagem de dinheiro; golpe financeiro; dinheiro falso;
    witwassen; geld witwassen; oplichting; oplichten; vals geld`,
  // Harassment, hate, discrimination.
  hate: `hate speech; racial slur; racial slurs; ethnic slur; ethnic slurs; slur; slurs; ethnic cleansing; white supremacy; white supremacist; holocaust denial; deny the holocaust;
    racist (joke|jokes|content|essay|rant|propaganda|message); sexist (joke|jokes|content|essay); (are|is) (inferior|subhuman|vermin); subhuman;
    harass; harassing; harassment; bully (someone|him|her|them|a); cyberbully; cyberbullying; death threat; death threats; threatening (letter|message|email|note);
    (insult|demean|humiliate|degrade|threaten|intimidate) (someone|people|him|her|them|my|women|minorities|immigrants);
    incite (violence|hatred|hate); dehumanize; dehumanizing; dehumanise; discriminate against; homophobic; transphobic; xenophobic; misogynistic; antisemitic; islamophobic; body shaming;
    hassrede; volksverhetzung; rassistische (witze|beleidigungen); discours haineux; insultes racistes; discurso de odio; insultos racistas; incitamento all'odio; insulti razzisti;
    discurso de ódio; insultos racistas; haatzaaien; racistische grappen`,
  selfharm: `suicide; suicidal; kill myself; end my life; take my own; self harm; cut myself; cutting myself; hurt myself; harm myself; starve myself; hang myself;
    pro ana; thinspiration; painless (way|death|method); overdose on; (encourage|promote|glorify) (suicide|self|eating|anorexia|bulimia);
    selbstmord; suizid; mich umbringen; selbstverletzung; me suicider; automutilation; suicidio; suicidarme; autolesión; autolesiones; uccidermi; autolesionismo;
    suicídio; me matar; automutilação; zelfmoord; zelfbeschadiging`,
  // Sexual content with minors or without consent, sexual exploitation.
  sexual: `child pornography; child porn; csam; child sexual; sexual abuse; sexually abuse; (sexual|sexually) (explicit|content|story|scene|acts); underage; pedophile; pedophilia; paedophile; paedophilia;
    groom (a|children|kids|minors|a child); sexualize; sexualise; sexualizing; explicit (sex|sexual|content|scene|story); erotic (story|content|scene); erotica; pornographic; porn;
    nudes; naked (pictures|photos|images); revenge porn; deepfake (porn|nudes|pornography); non consensual; nonconsensual; without (her|their|his) consent; rape; raping;
    sex trafficking; sextortion; kinderpornografie; sexueller missbrauch; pédopornographie; abus sexuel; pornografía infantil; abuso sexual; pedopornografia; abuso sessuale;
    pornografia infantil; abuso sexual; kinderporno; seksueel misbruik`,
  // Privacy invasion, doxxing, stalking, covert surveillance.
  privacy: `dox; doxx; doxxing; doxing; home address of; (find|track|locate|get) (someone's|her|his|their) (address|location|home|phone|whereabouts);
    social security number; social security numbers; stalk; stalking; stalker; spy on; spying on; track (someone's|her|his|their|my) (phone|location|car);
    (secretly|covertly) (record|track|monitor|film|spy|follow|read); hidden camera; tracking device; gps tracker; wiretap; wiretapping;
    without (their|her|his) (knowledge|permission); (read|access) (someone's|her|his|their) (emails|messages|texts|account);
    (leak|expose|publish) (personal|private|their|her|his) (information|data|address|details); private information; personal information of;
    adresse herausfinden; heimlich (filmen|aufnehmen|überwachen|verfolgen); espionner; traquer; secrètement (filmer|enregistrer); espiar a; rastrear (el|su);
    spiare; pedinare; espionar; rastrear (o|seu|sua); bespioneren; stiekem (filmen|volgen)`,
  disinfo: `disinformation; misinformation; fake news; propaganda; conspiracy theory; conspiracy theories; hoax; astroturfing; troll farm; bot accounts; election interference; voter suppression;
    (vaccine|vaccines) (cause|causes); (rigged|stolen) election; (election|elections) (was|were) (rigged|stolen);
    (defamatory|slanderous|libelous|defaming) (article|post|statement|claims|story); defamation; slander; libel;
    (fake|fabricated|false|made-up) (news|article|story|claims|evidence|quotes|statistics|study|studies|testimonials); deepfake; deepfakes;
    (spread|spreading) (misinformation|disinformation|rumors|rumours|lies|false); mislead (voters|the public|people|readers); manipulate (public opinion|voters|elections);
    falschinformationen; desinformation; verschwörungstheorie; désinformation; fausses nouvelles; théorie du complot; desinformación; noticias falsas; teoría conspirativa;
    disinformazione; notizie false; teoria del complotto; desinformação; notícias falsas; teoria da conspiração; desinformatie; nepnieuws; complottheorie`,
  // Evading law enforcement, concealing a crime, trafficking.
  evasion: `illegal (activities|activity|means|methods|purposes|acts|business|ways); illegally; unlawfully;
    without getting caught; without being caught; get away with; untraceable; undetectable; leave no trace; leave no evidence;
    (avoid|evade|escape|elude) (detection|police|the police|law enforcement|arrest|authorities|the authorities|cops|the cops|capture|surveillance);
    (hide|dispose) (a|the|of) (body|corpse|evidence); (destroy|tamper) (evidence|with evidence); cover up (crime|crimes|murder); burner phone; fake alibi;
    (obtain|buy|cross|enter|acquire) illegally; smuggle; smuggling; human trafficking; trafficking; break into (houses|cars|someone's|homes); hotwire; pick a lock;
    ohne erwischt; nicht erwischt; spuren verwischen; sans être (pris|vu|détecté); sin ser (atrapado|detectado|descubierto);
    senza essere (scoperto|scoperti|beccato); sem ser (pego|descoberto|detectado); zonder gepakt; zonder betrapt`,
}
