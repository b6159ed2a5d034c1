#!/usr/bin/env python3
"""Sanity checks for the semantic-search evaluation set (test data, not a test).

Run:  python3 tests/data/semantic/check_overlap.py

1. paraphrase.toml: every question must share NO content word with the text of
   its answer notes (frontmatter + body + folder/file name).  Text is
   lower-cased, accents are stripped, it is split on non-alphanumerics, and
   EN+PT stop words are removed.  Two words "share" if
     - they are equal, or
     - both have >= 5 letters and the same first 5 letters, or
     - both have >= 4 letters and one is a prefix of the other.
2. exact.toml: every rare term in a question's `terms` occurs (case-insensitive) in
   every answer note and in no other note (whole-word match), so the answer
   set is complete.
3. Every answer path exists; MEMORY.md indexes every note; counts per language.
Exit status is non-zero on any failure.
"""
import re
import sys
import tomllib
import unicodedata
from pathlib import Path

HERE = Path(__file__).resolve().parent
VAULT = HERE / "vault"

STOP_EN = """
a about above after again against all am an and any are aren as at be because been
before being below between both but by can cannot could did didn do does doesn doing
don down during each few for from further had has have having he her here hers herself
him himself his how i if in into is isn it its itself just let me more most my myself
no nor not now of off on once only or other ought our ours ourselves out over own same
she should so some such than that the their theirs them themselves then there these
they this those through to too under until up very was we were what when where which
while who whom why will with would you your yours yourself yourselves s t ll re ve d m
o y also ever still us get got whats what's who's how's i'm we're
""".split()

STOP_PT = """
a à ao aos aquela aquelas aquele aqueles aquilo as às até com como da das de dela
delas dele deles depois do dos e é ela elas ele eles em entre era eram essa essas esse
esses esta está estão estas estava este estes eu foi for foram há isso isto já lhe
lhes mais mas me mesmo meu meus minha minhas muito na não nas nem no nos nós nossa
nossas nosso nossos num numa o os ou para pela pelas pelo pelos por qual quais quando
que quem se sem ser seu seus só sua suas também te tem têm teu tua são um uma umas uns
você vocês vos ter tenho tinha estou estamos somos sou seria pra pro cada outro outra
onde porque por quê ainda
""".split()


def fold(text: str) -> str:
    text = unicodedata.normalize("NFKD", text.lower())
    return "".join(c for c in text if not unicodedata.combining(c))


STOP = {fold(w) for w in STOP_EN + STOP_PT}


def words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z0-9]+", fold(text)) if w not in STOP}


def shares(a: str, b: str) -> bool:
    if a == b:
        return True
    if len(a) >= 5 and len(b) >= 5 and a[:5] == b[:5]:
        return True
    if min(len(a), len(b)) >= 4 and (a.startswith(b) or b.startswith(a)):
        return True
    return False


def note_text(rel: str) -> str:
    path = VAULT / rel
    # folder and file name count as note text too
    return path.read_text(encoding="utf-8") + "\n" + rel.replace("memory/", "", 1)


def main() -> int:
    fails = 0
    notes = sorted(str(p.relative_to(VAULT)) for p in VAULT.glob("memory/**/*.md"))
    texts = {n: note_text(n) for n in notes}

    # MEMORY.md index
    index = (VAULT / "MEMORY.md").read_text(encoding="utf-8")
    for n in notes:
        if f"]({n})" not in index:
            print(f"MEMORY.md does not index {n}")
            fails += 1

    # word counts
    for n in notes:
        body = (VAULT / n).read_text(encoding="utf-8").split("---", 2)[2]
        wc = len(re.findall(r"\S+", body))
        if not 60 <= wc <= 300:
            print(f"word count {wc} out of range: {n}")
            fails += 1

    para = tomllib.loads((HERE / "paraphrase.toml").read_text(encoding="utf-8"))["q"]
    exact = tomllib.loads((HERE / "exact.toml").read_text(encoding="utf-8"))["q"]

    for name, qs in (("paraphrase", para), ("exact", exact)):
        for q in qs:
            for a in q["answers"]:
                if a not in texts:
                    print(f"[{name}] missing answer file {a!r}: {q['question']}")
                    fails += 1
            if q.get("lang") not in ("en", "pt"):
                print(f"[{name}] bad lang: {q}")
                fails += 1

    # 1. paraphrase overlap
    for q in para:
        qw = words(q["question"])
        for a in q["answers"]:
            nw = words(texts.get(a, ""))
            hits = sorted({f"{x}~{y}" for x in qw for y in nw if shares(x, y)})
            if hits:
                print(f"[paraphrase] shared with {a}: {', '.join(hits)}\n    Q: {q['question']}")
                fails += 1

    # 2. exact terms identify exactly the answer set
    for q in exact:
        terms = q.get("terms", [])
        if not terms:
            print(f"[exact] no terms listed: {q['question']}")
            fails += 1
        for t in terms:
            if fold(t) not in fold(q["question"]):
                print(f"[exact] term {t!r} not in question: {q['question']}")
                fails += 1
            pat = re.compile(r"(?<![a-z0-9])" + re.escape(fold(t)) + r"(?![a-z0-9])")
            having = {n for n, tx in texts.items() if pat.search(fold(tx))}
            if having != set(q["answers"]):
                print(f"[exact] term {t!r} in {sorted(having)} but answers={q['answers']}")
                fails += 1

    def langs(qs):
        return {l: sum(1 for q in qs if q["lang"] == l) for l in ("en", "pt")}

    pt_only = {fold(w) for w in STOP_PT} - {fold(w) for w in STOP_EN}
    en_only = {fold(w) for w in STOP_EN} - {fold(w) for w in STOP_PT}

    def note_lang(n):
        toks = re.findall(r"[a-z]+", fold(texts[n].split("---", 2)[2]))
        pt = sum(t in pt_only for t in toks)
        en = sum(t in en_only for t in toks)
        return "pt" if pt > en else "en"

    cross = [q for q in para if any(note_lang(a) != q["lang"] for a in q["answers"])]
    nl = {l: sum(1 for n in notes if note_lang(n) == l) for l in ("en", "pt")}
    print(f"notes: {len(notes)} {nl}")
    print(f"paraphrase: {len(para)} {langs(para)}, cross-language: {len(cross)}")
    print(f"exact: {len(exact)} {langs(exact)}")
    print("FAILURES:", fails)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
