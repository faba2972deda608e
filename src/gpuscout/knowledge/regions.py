"""Where an offer's region is: the words of a region name, the country (ISO 3166-1) or area a region
name is in, and what a renter's region filter means. The one place these facts and rules live: the
catalog's SQL (:mod:`gpuscout.catalog.query`) is written from them, and the advisor filters offers
in memory with :class:`RegionFilter`; a test checks that the two agree on every region the bundled
snapshot has.

A filter term (``gpuscout offers --region X``, the web's ``region``, a workload's ``regions``)
matches a region name when

(a) its words are consecutive words of the name: words are split at ``-_:/,.();<>`` and spaces and
    where letters meet digits, and compared ignoring ASCII case ("DE" is a word of ``country:DE``,
    not of ``desmoines-usa-1``; "IN" of ``IN1``, not of ``FIN-03``; "us-east" of ``us-east-1``);
(b) it names a country (its ISO code, English name or a common alias: DE, Germany, US, USA, United
    States, UK...) and the name is located in that country (:func:`place_in`);
(c) it names an area (:data:`AREA_WORDS`: eu/europe, na/north-america, asia, apac...) and the name
    is located in a country of that area, or its own code says it is in that area (``eu-*``).

Where a name is located (:func:`place_in`, in this order): a name of :data:`PLACES` (region codes
whose place only the provider's documentation tells, each with its source) is where that table says
and nowhere else; otherwise the catalog's canonical ``country:XX`` (rules.yaml ``regions``), a name
that ends or starts with a country's name (``frankfurt-germany-6``, ``Finland 3``, ``australia-east-1``;
trailing numbers ignored), a name ending in ``, XX`` or ``, XX, YY`` (Vast.ai's "Texas, US" and
"Bavaria, DE, EU"), a name whose first word is an ISO country code (``us-east1-a``, ``fr-par``,
Lium's ``US-MS``, RunPod's ``CA-MTL-1``), and a name that starts with an area code (``eu-*``,
``ap-*``), which tells the area and, where its second word is a country code, the country
(RunPod's ``EU-RO-1``).

Case: only ASCII letters are folded, on every path (SQLite's ``lower`` folds no others), so that
SQLite and PostgreSQL answer alike.

Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

#: The characters that separate the words of a region name (besides the space).
SEPARATORS = "-_:/,.();<>"

_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def fold(text: str) -> str:
    """``text`` with its ASCII letters in lower case (no other letter is folded: SQLite's ``lower``)."""
    return text.translate(_ASCII_LOWER)


def normalized(text: str) -> str:
    """The words of a region name, each between single spaces (``" fin 03 "``; two spaces for none).

    Written as the chain of replacements the catalog's SQL runs (:func:`gpuscout.catalog.query`
    writes the same steps): separators become spaces, each digit is marked ``<d>`` and the marks of
    neighbouring digits are joined (so a run of digits is one word), the marks become spaces, and
    runs of spaces become one (``' '`` -> ``'<>'``, ``'><'`` -> ``''``, ``'<>'`` -> ``' '``)."""
    s = fold(text)
    for c in SEPARATORS:
        s = s.replace(c, " ")
    for d in "0123456789":
        s = s.replace(d, f"<{d}>")
    s = s.replace("><", "").replace("<", " ").replace(">", " ")
    s = s.replace(" ", "<>").replace("><", "").replace("<>", " ")
    return f" {s.strip(' ')} "


def words(text: str) -> str:
    """The words of ``text`` joined by single spaces (``"fin 03"``; empty for none)."""
    return normalized(text).strip(" ")


# ---- countries and areas -----------------------------------------------------------------------
# ISO 3166-1 alpha-2 codes with their English short names (https://www.iso.org/obp/ui/#search) and
# their UN M49 sub-region (https://unstats.un.org/unsd/methodology/m49/): NEU/WEU/SEU/EEU Northern,
# Western, Southern, Eastern Europe; NAM Northern America; CAM Central America; CAR Caribbean; SAM
# South America; EAS/SEA/SAS/CAS/WAS Eastern, South-eastern, Southern, Central, Western Asia; NAF
# Northern Africa; SSA Sub-Saharan Africa; ANZ Australia and New Zealand; MEL/MIC/POL Melanesia,
# Micronesia, Polynesia; ANT Antarctica. After the sub-region: other names the country goes by
# ("; "-separated), ASCII spellings of names with accents among them.
_COUNTRIES = """
AD SEU Andorra
AE WAS United Arab Emirates; UAE
AF SAS Afghanistan
AG CAR Antigua and Barbuda
AI CAR Anguilla
AL SEU Albania
AM WAS Armenia
AO SSA Angola
AQ ANT Antarctica
AR SAM Argentina
AS POL American Samoa
AT WEU Austria
AU ANZ Australia
AW CAR Aruba
AX NEU Åland Islands; Aland Islands
AZ WAS Azerbaijan
BA SEU Bosnia and Herzegovina
BB CAR Barbados
BD SAS Bangladesh
BE WEU Belgium
BF SSA Burkina Faso
BG EEU Bulgaria
BH WAS Bahrain
BI SSA Burundi
BJ SSA Benin
BL CAR Saint Barthélemy; Saint Barthelemy
BM NAM Bermuda
BN SEA Brunei; Brunei Darussalam
BO SAM Bolivia
BQ CAR Caribbean Netherlands; Bonaire
BR SAM Brazil; Brasil
BS CAR Bahamas
BT SAS Bhutan
BV SAM Bouvet Island
BW SSA Botswana
BY EEU Belarus
BZ CAM Belize
CA NAM Canada
CC ANZ Cocos (Keeling) Islands; Cocos Islands
CD SSA DR Congo; Democratic Republic of the Congo
CF SSA Central African Republic
CG SSA Congo; Republic of the Congo
CH WEU Switzerland
CI SSA Côte d'Ivoire; Cote d'Ivoire; Ivory Coast
CK POL Cook Islands
CL SAM Chile
CM SSA Cameroon
CN EAS China
CO SAM Colombia
CR CAM Costa Rica
CU CAR Cuba
CV SSA Cabo Verde; Cape Verde
CW CAR Curaçao; Curacao
CX ANZ Christmas Island
CY WAS Cyprus
CZ EEU Czechia; Czech Republic
DE WEU Germany; Deutschland
DJ SSA Djibouti
DK NEU Denmark
DM CAR Dominica
DO CAR Dominican Republic
DZ NAF Algeria
EC SAM Ecuador
EE NEU Estonia
EG NAF Egypt
EH NAF Western Sahara
ER SSA Eritrea
ES SEU Spain
ET SSA Ethiopia
FI NEU Finland
FJ MEL Fiji
FK SAM Falkland Islands
FM MIC Micronesia
FO NEU Faroe Islands
FR WEU France
GA SSA Gabon
GB NEU United Kingdom; UK; Great Britain; Britain; England; Scotland; Wales; Northern Ireland
GD CAR Grenada
GE WAS Georgia
GF SAM French Guiana
GG NEU Guernsey
GH SSA Ghana
GI SEU Gibraltar
GL NAM Greenland
GM SSA Gambia
GN SSA Guinea
GP CAR Guadeloupe
GQ SSA Equatorial Guinea
GR SEU Greece
GS SAM South Georgia and the South Sandwich Islands
GT CAM Guatemala
GU MIC Guam
GW SSA Guinea-Bissau
GY SAM Guyana
HK EAS Hong Kong
HM ANZ Heard Island and McDonald Islands
HN CAM Honduras
HR SEU Croatia
HT CAR Haiti
HU EEU Hungary
ID SEA Indonesia
IE NEU Ireland
IL WAS Israel
IM NEU Isle of Man
IN SAS India
IO SSA British Indian Ocean Territory
IQ WAS Iraq
IR SAS Iran
IS NEU Iceland
IT SEU Italy
JE NEU Jersey
JM CAR Jamaica
JO WAS Jordan
JP EAS Japan
KE SSA Kenya
KG CAS Kyrgyzstan
KH SEA Cambodia
KI MIC Kiribati
KM SSA Comoros
KN CAR Saint Kitts and Nevis
KP EAS North Korea
KR EAS South Korea; Korea; Republic of Korea
KW WAS Kuwait
KY CAR Cayman Islands
KZ CAS Kazakhstan
LA SEA Laos
LB WAS Lebanon
LC CAR Saint Lucia
LI WEU Liechtenstein
LK SAS Sri Lanka
LR SSA Liberia
LS SSA Lesotho
LT NEU Lithuania
LU WEU Luxembourg
LV NEU Latvia
LY NAF Libya
MA NAF Morocco
MC WEU Monaco
MD EEU Moldova
ME SEU Montenegro
MF CAR Saint Martin
MG SSA Madagascar
MH MIC Marshall Islands
MK SEU North Macedonia; Macedonia
ML SSA Mali
MM SEA Myanmar
MN EAS Mongolia
MO EAS Macao; Macau
MP MIC Northern Mariana Islands
MQ CAR Martinique
MR SSA Mauritania
MS CAR Montserrat
MT SEU Malta
MU SSA Mauritius
MV SAS Maldives
MW SSA Malawi
MX CAM Mexico
MY SEA Malaysia
MZ SSA Mozambique
NA SSA Namibia
NC MEL New Caledonia
NE SSA Niger
NF ANZ Norfolk Island
NG SSA Nigeria
NI CAM Nicaragua
NL WEU Netherlands; The Netherlands; Holland
NO NEU Norway
NP SAS Nepal
NR MIC Nauru
NU POL Niue
NZ ANZ New Zealand
OM WAS Oman
PA CAM Panama
PE SAM Peru
PF POL French Polynesia
PG MEL Papua New Guinea
PH SEA Philippines
PK SAS Pakistan
PL EEU Poland
PM NAM Saint Pierre and Miquelon
PN POL Pitcairn
PR CAR Puerto Rico
PS WAS Palestine
PT SEU Portugal
PW MIC Palau
PY SAM Paraguay
QA WAS Qatar
RE SSA Réunion; Reunion
RO EEU Romania
RS SEU Serbia
RU EEU Russia; Russian Federation
RW SSA Rwanda
SA WAS Saudi Arabia
SB MEL Solomon Islands
SC SSA Seychelles
SD NAF Sudan
SE NEU Sweden
SG SEA Singapore
SH SSA Saint Helena
SI SEU Slovenia
SJ NEU Svalbard and Jan Mayen
SK EEU Slovakia
SL SSA Sierra Leone
SM SEU San Marino
SN SSA Senegal
SO SSA Somalia
SR SAM Suriname
SS SSA South Sudan
ST SSA São Tomé and Príncipe; Sao Tome and Principe
SV CAM El Salvador
SX CAR Sint Maarten
SY WAS Syria
SZ SSA Eswatini; Swaziland
TC CAR Turks and Caicos Islands
TD SSA Chad
TF SSA French Southern Territories
TG SSA Togo
TH SEA Thailand
TJ CAS Tajikistan
TK POL Tokelau
TL SEA Timor-Leste; East Timor
TM CAS Turkmenistan
TN NAF Tunisia
TO POL Tonga
TR WAS Türkiye; Turkiye; Turkey
TT CAR Trinidad and Tobago
TV POL Tuvalu
TW EAS Taiwan
TZ SSA Tanzania
UA EEU Ukraine
UG SSA Uganda
UM MIC United States Minor Outlying Islands
US NAM United States; USA; United States of America
UY SAM Uruguay
UZ CAS Uzbekistan
VA SEU Vatican City; Holy See
VC CAR Saint Vincent and the Grenadines
VE SAM Venezuela
VG CAR British Virgin Islands
VI CAR United States Virgin Islands; US Virgin Islands
VN SEA Vietnam; Viet Nam
VU MEL Vanuatu
WF POL Wallis and Futuna
WS POL Samoa
YE WAS Yemen
YT SSA Mayotte
ZA SSA South Africa
ZM SSA Zambia
ZW SSA Zimbabwe
"""


@dataclass(frozen=True, slots=True)
class Country:
    code: str  # ISO 3166-1 alpha-2, upper case
    name: str  # English short name
    subregion: str  # UN M49 sub-region (the keys above)
    aliases: tuple[str, ...]  # other names


def _parse_countries() -> dict[str, Country]:
    out: dict[str, Country] = {}
    for line in _COUNTRIES.strip().splitlines():
        code, subregion, rest = line.split(" ", 2)
        names = [n.strip() for n in rest.split(";")]
        out[code] = Country(code, names[0], subregion, tuple(names[1:]))
    return out


#: Every country by ISO code.
COUNTRIES: dict[str, Country] = _parse_countries()


def _codes(text: str) -> frozenset[str]:
    return frozenset(text.split())


_EU27 = _codes("AT BE BG HR CY CZ DK EE FI FR DE GR HU IE IT LV LT LU MT NL PL PT RO SK SI ES SE")
_MIDDLE_EAST = _codes("AE BH EG IL IQ IR JO KW LB OM PS QA SA SY TR YE")


def _in_subregions(*subregions: str) -> frozenset[str]:
    return frozenset(c.code for c in COUNTRIES.values() if c.subregion in subregions)


#: Areas by key: the ISO codes of their countries. Europe is M49's, with Cyprus (an EU member M49
#: counts in Western Asia); North America is M49's Northern America, Central America and the
#: Caribbean; APAC is Eastern, South-eastern and Southern Asia with Oceania; the Middle East is the
#: usual list (Western Asia's Gulf and Levant, Türkiye, Iran, Egypt). ``east-asia``, ``south-asia``
#: and ``southeast-asia`` place a region whose country no source gives (:data:`PLACES`).
AREAS: dict[str, frozenset[str]] = {
    "europe": _in_subregions("NEU", "WEU", "SEU", "EEU") | {"CY"},
    "eea": _EU27 | {"IS", "LI", "NO"},
    "eu27": _EU27,
    "north-america": _in_subregions("NAM", "CAM", "CAR"),
    "south-america": _in_subregions("SAM"),
    "asia": _in_subregions("EAS", "SEA", "SAS", "CAS", "WAS") - {"CY"},
    "apac": _in_subregions("EAS", "SEA", "SAS", "ANZ", "MEL", "MIC", "POL"),
    "oceania": _in_subregions("ANZ", "MEL", "MIC", "POL"),
    "africa": _in_subregions("NAF", "SSA"),
    "middle-east": _MIDDLE_EAST,
    "east-asia": _in_subregions("EAS"),
    "south-asia": _in_subregions("SAS"),
    "southeast-asia": _in_subregions("SEA"),
}

#: The words a renter names an area with (their words, :func:`words`) -> the area. "na" is North
#: America here, not Namibia's ISO code; "us" is the United States alone (a country, not an area).
AREA_WORDS: dict[str, str] = {
    "eu": "europe",
    "europe": "europe",
    "european": "europe",
    "eea": "eea",
    "european economic area": "eea",
    "eu 27": "eu27",
    "european union": "eu27",
    "na": "north-america",
    "north america": "north-america",
    "northamerica": "north-america",
    "south america": "south-america",
    "southamerica": "south-america",
    "asia": "asia",
    "apac": "apac",
    "ap": "apac",
    "asia pacific": "apac",
    "asiapacific": "apac",
    "oceania": "oceania",
    "oc": "oceania",
    "africa": "africa",
    "middle east": "middle-east",
    "mideast": "middle-east",
}

#: The first word of a cloud region code that names an area (AWS ``eu-``, ``ap-``, ``me-``, ``af-``,
#: ``sa-``; Google's ``europe-``, ``asia-``, ``northamerica-``, ``southamerica-``, ``africa-``;
#: RunPod's ``EUR-``, ``OC-``). ``me``, ``af``, ``sa`` and ``na`` are ISO codes too (Montenegro,
#: Afghanistan, Saudi Arabia, Namibia): as the first word of a region code they are read as areas.
AREA_PREFIXES: dict[str, str] = {
    "eu": "europe",
    "eur": "europe",
    "europe": "europe",
    "asia": "asia",
    "ap": "apac",
    "apac": "apac",
    "me": "middle-east",
    "af": "africa",
    "africa": "africa",
    "sa": "south-america",
    "southamerica": "south-america",
    "na": "north-america",
    "northamerica": "north-america",
    "oc": "oceania",
}

#: Country names that are also the end of another place's name ("New Mexico", "New Jersey", "New
#: South Wales", "Papua New Guinea", "American Samoa", "South Sudan", "North Korea", "Northern
#: Ireland", the US state of Georgia...): a region name is read as in that country only when the name
#: is all it says (trailing numbers aside).
WHOLE_NAME_ONLY = frozenset(
    {"georgia", "jersey", "mexico", "wales", "guinea", "samoa", "sudan", "congo", "korea", "ireland"}
    | {"dominica", "macedonia"}
)


def _country_names() -> dict[str, str]:
    """Every country's names and aliases (their words) -> its ISO code."""
    out: dict[str, str] = {}
    for c in COUNTRIES.values():
        for name in (c.name, *c.aliases):
            out.setdefault(words(name), c.code)
    return out


#: A country's names (their words, :func:`words`) -> its ISO code.
COUNTRY_NAMES: dict[str, str] = _country_names()


# ---- regions whose place only the provider says ------------------------------------------------
# Region codes -> ISO code, or "@area" where the source gives the area only. The key is the name
# with its ASCII letters in lower case, matched whole. A name here is where this table says and
# nowhere else (the rules that read a name's words do not apply to it). Names the rules place right
# are not repeated here (``us-east-1``'s first word is "us"; ``CANADA-1`` ends in a country's name;
# ``country:FI`` is canonical), except where a region code also reads as another place.
_PLACES = """
# AWS: https://docs.aws.amazon.com/global-infrastructure/latest/regions/aws-regions.html
af-south-1 ZA
ap-east-1 HK
ap-east-2 TW
ap-northeast-1 JP
ap-northeast-2 KR
ap-northeast-3 JP
ap-south-1 IN
ap-south-2 IN
ap-southeast-1 SG
ap-southeast-2 AU
ap-southeast-3 ID
ap-southeast-4 AU
ap-southeast-5 MY
ap-southeast-7 TH
ca-central-1 CA
ca-west-1 CA
eu-central-1 DE
eu-central-2 CH
eu-north-1 SE
eu-south-1 IT
eu-south-2 ES
eu-west-1 IE
eu-west-2 GB
eu-west-3 FR
il-central-1 IL
me-central-1 AE
me-south-1 BH
mx-central-1 MX
sa-east-1 BR
# Azure: https://learn.microsoft.com/en-us/azure/reliability/regions-list
centralus US
eastus US
eastus2 US
northcentralus US
southcentralus US
westcentralus US
westus US
westus2 US
westus3 US
canadacentral CA
canadaeast CA
brazilsouth BR
mexicocentral MX
northeurope IE
westeurope NL
uksouth GB
ukwest GB
francecentral FR
germanywestcentral DE
swedencentral SE
norwayeast NO
switzerlandnorth CH
polandcentral PL
italynorth IT
spaincentral ES
japaneast JP
japanwest JP
koreacentral KR
australiaeast AU
australiasoutheast AU
southeastasia SG
eastasia HK
centralindia IN
southindia IN
uaenorth AE
qatarcentral QA
israelcentral IL
southafricanorth ZA
# Google Cloud: https://cloud.google.com/compute/docs/regions-zones
northamerica-northeast1 CA
northamerica-northeast2 CA
southamerica-east1 BR
europe-west1 BE
europe-west2 GB
europe-west3 DE
europe-west4 NL
europe-west6 CH
europe-west8 IT
europe-west9 FR
europe-north1 FI
europe-central2 PL
europe-southwest1 ES
asia-east1 TW
asia-east2 HK
asia-northeast1 JP
asia-northeast2 JP
asia-northeast3 KR
asia-south1 IN
asia-south2 IN
asia-southeast1 SG
asia-southeast2 ID
australia-southeast1 AU
australia-southeast2 AU
me-west1 IL
me-central1 QA
# Oracle Cloud: https://docs.oracle.com/en-us/iaas/Content/General/Concepts/regions.htm
af-johannesburg-1 ZA
af-casablanca-1 MA
ap-tokyo-1 JP
ap-osaka-1 JP
ap-seoul-1 KR
ap-mumbai-1 IN
ap-hyderabad-1 IN
ap-sydney-1 AU
ap-melbourne-1 AU
ap-singapore-1 SG
eu-frankfurt-1 DE
eu-amsterdam-1 NL
eu-zurich-1 CH
eu-milan-1 IT
eu-madrid-1 ES
eu-paris-1 FR
eu-marseille-1 FR
eu-stockholm-1 SE
me-dubai-1 AE
me-jeddah-1 SA
sa-saopaulo-1 BR
sa-santiago-1 CL
# Lambda: the 17 regions SkyPilot's fetch_lambda_cloud.py lists (data/snapshot/rules.yaml collapse);
# their names give the area only (the us-* ones are in the US by their first word)
asia-northeast-1 @east-asia
asia-northeast-2 @east-asia
asia-south-1 @south-asia
europe-central-1 @europe
europe-south-1 @europe
me-west-1 @middle-east
# Nebius: https://docs.nebius.com/overview/regions (eu-north1 Finland, eu-west1 Paris)
eu-north1 FI
eu-west1 FR
# Verda (DataCrunch) locations: tests/fixtures/reference/provider_samples/verda_datacrunch.json
# ("FIN-01" Finland 1, country_code FI; "ICE-01" Iceland 1, IS) and verda_v1.source.md (FIN-03)
fin-01 FI
fin-02 FI
fin-03 FI
ice-01 IS
# Paperspace: "East Coast (NY2)" (data/snapshot/rules.yaml regions.names); its other regions are
# West Coast CA1 (California, not Canada) and Europe AMS1 (Amsterdam), as Paperspace lists them
ny2 US
ca1 US
ams1 NL
# DigitalOcean: https://docs.digitalocean.com/platform/regional-availability/
nyc1 US
nyc2 US
nyc3 US
sfo1 US
sfo2 US
sfo3 US
atl1 US
tor1 CA
ams2 NL
ams3 NL
lon1 GB
fra1 DE
sgp1 SG
blr1 IN
syd1 AU
# Spheron: city codes in the name (IATA: SYD Sydney, TYO Tokyo, ATL Atlanta)
syd2 AU
tyo4 JP
atl US
# Vultr region ids (IATA city codes): https://www.vultr.com/api/#tag/region
ewr US
ord US
dfw US
sea US
lax US
sjc US
mia US
hnl US
yto CA
mex MX
sao BR
scl CL
ams NL
lhr GB
man GB
fra DE
cdg FR
mad ES
waw PL
sto SE
nrt JP
icn KR
sgp SG
syd AU
mel AU
bom IN
del IN
blr IN
jnb ZA
tlv IL
"""


def _parse_places() -> dict[str, str]:
    out: dict[str, str] = {}
    for line in _PLACES.strip().splitlines():
        if line.startswith("#"):
            continue
        name, where = line.split()
        if name in out:
            raise ValueError(f"regions: {name} listed twice")
        if not (where[1:] in AREAS if where.startswith("@") else where in COUNTRIES):
            raise ValueError(f"regions: {name}: unknown country or area {where}")
        out[name] = where
    return out


#: Region codes (ASCII letters folded) -> ISO code, or ``@area``.
PLACES: dict[str, str] = _parse_places()


# ---- what a filter term means ------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class RegionTerm:
    """One region filter term: its words (rule a), and the countries (rule b) or the area (rule c)
    it names. ``areas`` are the areas wholly inside what it names (so that a region placed only in
    an area, ``@europe`` or ``eu-*``, is in "Europe" but not in "Germany")."""

    text: str
    words: str
    countries: frozenset[str] = frozenset()
    areas: frozenset[str] = frozenset()


@lru_cache(maxsize=512)
def region_term(text: str) -> RegionTerm:
    """What a typed region filter term means (the module's rules a, b and c)."""
    w = words(text)
    countries: frozenset[str] = frozenset()
    if w in AREA_WORDS:
        countries = AREAS[AREA_WORDS[w]]
    elif w.upper() in COUNTRIES and len(w) == 2:
        countries = frozenset([w.upper()])
    elif w in COUNTRY_NAMES:
        countries = frozenset([COUNTRY_NAMES[w]])
    elif w.startswith("country ") and w[8:].upper() in COUNTRIES:
        countries = frozenset([w[8:].upper()])
    areas = frozenset(a for a, members in AREAS.items() if countries and members <= countries)
    return RegionTerm(text, w, countries, areas)


@dataclass(frozen=True, slots=True)
class NameParts:
    """What the rules read of one region name (the catalog's SQL computes the same columns)."""

    low: str  # the name, ASCII letters folded (SQL ``l``)
    n: str  # its words between single spaces, :func:`normalized` (SQL ``n``)
    tail: str  # ``n`` without its trailing numbers and spaces (SQL ``t``)
    first: str  # its first word, or "" (SQL ``f``)
    second: str  # its second word, or "" (SQL ``g``)
    last: str  # the last word of ``tail``, or "" (SQL ``w``)


def name_parts(name: str) -> NameParts:
    """:class:`NameParts` of a region name, each computed as the SQL computes it."""
    low = fold(name)
    n = normalized(name)
    tail = n.rstrip(" 0123456789")
    rest = n[1:] + " "
    first = rest[: rest.index(" ")]
    rest = n[len(first) + 2 :] + " "
    second = rest[: rest.index(" ")]
    last = tail[len(tail.rstrip(tail.replace(" ", ""))) :]
    return NameParts(low, n, tail, first, second, last)


@dataclass(frozen=True, slots=True)
class CountryRules:
    """:func:`place_in`'s rules for one set of countries and areas, as the values the catalog's SQL
    compares a name's parts with (every value folded: lower case)."""

    places: tuple[str, ...]  # PLACES names placed in one of the countries or areas
    canonical: tuple[str, ...]  # "country:xx"
    codes: tuple[str, ...]  # "xx"
    tail_words: tuple[str, ...]  # one-word country names a region name may end with
    tail_phrases: tuple[str, ...]  # country names of several words a region name may end with
    whole_names: tuple[str, ...]  # " name": country names that must be all of the region name
    head_phrases: tuple[str, ...]  # country names of several words a region name may start with
    leading_words: tuple[str, ...]  # a region name's possible first word: a one-word country name,
    # an ISO code (not an area code), an area code of an area wholly inside the countries
    country_prefixes: tuple[str, ...]  # area codes followed by a country's code (EU-RO-1)


@lru_cache(maxsize=512)
def country_rules(countries: frozenset[str], areas: frozenset[str]) -> CountryRules:
    """:func:`place_in`'s rules for ``countries`` (ISO codes) and ``areas`` (area keys)."""
    names = sorted(n for n, code in COUNTRY_NAMES.items() if code in countries)
    named = [n for n in names if n not in WHOLE_NAME_ONLY]
    codes = sorted(c.lower() for c in countries)
    leading = {
        *(n for n in named if " " not in n),
        *(c for c in codes if c not in AREA_PREFIXES),
        *(p for p, area in AREA_PREFIXES.items() if area in areas),
    }
    return CountryRules(
        places=tuple(
            sorted(
                n
                for n, where in PLACES.items()
                if (where[1:] in areas if where.startswith("@") else where in countries)
            )
        ),
        canonical=tuple(f"country:{c}" for c in codes),
        codes=tuple(codes),
        tail_words=tuple(n for n in named if " " not in n),
        tail_phrases=tuple(n for n in named if " " in n),
        whole_names=tuple(f" {n}" for n in names if n in WHOLE_NAME_ONLY),
        head_phrases=tuple(n for n in named if " " in n),
        leading_words=tuple(sorted(leading)),
        country_prefixes=tuple(sorted(AREA_PREFIXES)) if codes else (),
    )


def place_in(name: str, countries: frozenset[str], areas: frozenset[str] = frozenset()) -> bool:
    """Whether the region ``name`` is located in one of ``countries`` (ISO codes) or, where it says
    its area only, in one of ``areas``: the rules of the module's docstring, written as the
    catalog's SQL reads them (:func:`gpuscout.catalog.query.region_condition`)."""
    if not countries:
        return False
    rules = country_rules(countries, areas)
    p = name_parts(name)
    if p.low in PLACES:
        return p.low in rules.places
    low = p.low
    return (
        low in rules.canonical
        or p.last in rules.tail_words
        or any(p.tail.endswith(f" {phrase}") for phrase in rules.tail_phrases)
        or p.tail in rules.whole_names
        or any(p.n.startswith(f" {phrase} ") for phrase in rules.head_phrases)
        or (len(low) >= 4 and low[-4:-2] == ", " and low[-2:] in rules.codes)
        or (len(low) >= 8 and low[-8:-6] == ", " and low[-4:-2] == ", " and low[-6:-4] in rules.codes)
        or p.first in rules.leading_words
        or (p.first in rules.country_prefixes and p.second in rules.codes)
    )


def term_matches(term: RegionTerm, name: str) -> bool:
    """Whether one region ``name`` matches the filter ``term`` (rules a, b and c)."""
    if term.words and f" {term.words} " in normalized(name):
        return True
    return place_in(name, term.countries, term.areas)


def offer_places(region: str, regions: Sequence[str]) -> tuple[str, ...]:
    """The region names an offer is matched on: its ``regions`` where it stands for several (its
    ``region`` is then a summary, "3 regions"), else its ``region`` (and a one-name list)."""
    return tuple(regions) if len(regions) > 1 else (region, *regions)


class RegionFilter:
    """A region filter over offers (any of ``terms`` matches), as the catalog's SQL filters them:
    for the advisor, which filters offers in memory. Each region name is judged once."""

    def __init__(self, terms: Iterable[str]) -> None:
        self.terms = tuple(region_term(t) for t in terms)
        self._seen: dict[str, bool] = {}

    def __bool__(self) -> bool:
        return bool(self.terms)

    def place(self, name: str) -> bool:
        """Whether one region name matches a term."""
        hit = self._seen.get(name)
        if hit is None:
            hit = self._seen[name] = any(term_matches(t, name) for t in self.terms)
        return hit

    def offer(self, region: str, regions: Sequence[str]) -> bool:
        """Whether an offer (its ``region`` and ``regions``) is in a matching region."""
        return any(self.place(p) for p in offer_places(region, regions))


# ---- where a name is, for display ----------------------------------------------------------------
def countries_of(name: str) -> frozenset[str]:
    """The ISO codes of every country a rule of :func:`place_in` places the region ``name`` in (one,
    for every name of the bundled snapshot; none where a name says its area only), read from its
    parts directly rather than by trying each country."""
    p = name_parts(name)
    if p.low in PLACES:
        where = PLACES[p.low]
        return frozenset() if where.startswith("@") else frozenset([where])
    found: set[str] = set()
    if p.low.startswith("country:") and p.low[8:].upper() in COUNTRIES:
        found.add(p.low[8:].upper())
    for word in (p.last, p.first):
        if word in COUNTRY_NAMES and word not in WHOLE_NAME_ONLY:
            found.add(COUNTRY_NAMES[word])
    if p.tail[1:] in WHOLE_NAME_ONLY:
        found.add(COUNTRY_NAMES[p.tail[1:]])
    for phrase in _PHRASES:
        if p.tail.endswith(f" {phrase}") or p.n.startswith(f" {phrase} "):
            found.add(COUNTRY_NAMES[phrase])
    low = p.low
    codes = []
    if len(low) >= 4 and low[-4:-2] == ", ":
        codes.append(low[-2:])
    if len(low) >= 8 and low[-8:-6] == ", " and low[-4:-2] == ", ":
        codes.append(low[-6:-4])
    if p.first not in AREA_PREFIXES:
        codes.append(p.first)
    elif len(p.second) == 2:
        codes.append(p.second)
    found.update(c.upper() for c in codes if len(c) == 2 and c.upper() in COUNTRIES)
    return frozenset(found)


_PHRASES = tuple(n for n in COUNTRY_NAMES if " " in n and n not in WHOLE_NAME_ONLY)


@lru_cache(maxsize=4096)
def place_country(name: str) -> str | None:
    """The ISO code of the one country the region ``name`` is located in (:func:`place_in`), or
    ``None`` where no rule places it in one country (``unstated``, ``eu-*`` names of no country)."""
    found = countries_of(name)
    return next(iter(found)) if len(found) == 1 else None


def place_label(name: str) -> str | None:
    """What to show next to an opaque region code: the country it is in (``"SE"`` for AWS's
    ``eu-north-1``), where the name does not already say it (``country:DE``, ``frankfurt-germany-6``
    and ``us-east-1`` need no label); ``None`` otherwise."""
    code = place_country(name)
    if code is None:
        return None
    said = normalized(name)
    country = COUNTRIES[code]
    if any(f" {words(n)} " in said for n in (code, country.name, *country.aliases)):
        return None
    return code


def place_names(names: Iterable[str]) -> set[str]:
    """The country names and area words (their display spelling) for the region ``names``: what an
    error about a region no offer is in may suggest besides the names ("Finland" for ``FIN-03``)."""
    out: set[str] = set()
    for name in names:
        code = place_country(name)
        if code is not None:
            out.add(COUNTRIES[code].name)
            out.update(w for w, area in AREA_WORDS.items() if code in AREAS[area] and " " not in w)
    return out
