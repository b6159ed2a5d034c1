#!/usr/bin/env python3
"""Generate a deterministic, realistic synthetic mdmem vault for benchmarks.

Standard library only. Same arguments -> byte-identical output.

    python scripts/gen_vault.py OUT_DIR --notes 10000 [--seed 42] [--size 3000] [--force]

Layout (see DESIGN.md, "The vault")::

    OUT_DIR/
      .mdmem-generated          marker (JSON of the arguments); required by --force
      .obsidian/                app.json and core-plugins.json as a fresh Obsidian writes them (a vault
                                a person keeps has them; every hook reads them)
      MEMORY.md                 budget comment + one index line per non-daily note (first 300)
      memory/people/ projects/ protocols/ decisions/ references/ feedback/ daily/

A folder that would hold more than 500 notes is split into sub-folders of 400
(``memory/references/r000/...``); daily notes go into year folders
(``memory/daily/2026/2026-11-28.md``) once there are more than 500 of them.

Library use (from ``scripts/bench.py`` or tests)::

    from gen_vault import generate
    info = generate(Path("/tmp/v"), notes=1000, seed=42, size=3000)
    info["notes"], info["bytes"], info["seconds"], info["paths"], info["query_terms"]

``paths`` lists the notes (vault-relative POSIX paths, generation order; MEMORY.md
is not in it), ``query_terms`` ~50 search queries of 1-3 words. ``rare_words(seed)``
returns the rare vocabulary.
"""

from __future__ import annotations

import argparse
import bisect
import datetime as dt
import json
import math
import posixpath
import random
import shutil
import sys
import time
import unicodedata
from array import array
from pathlib import Path

__all__ = ["generate", "rare_words", "MARKER"]

MARKER = ".mdmem-generated"
OBSIDIAN_CORE = ("file-explorer", "global-search", "switcher", "graph", "backlink", "outgoing-link", "tag-pane",
                 "page-preview", "daily-notes", "templates", "note-composer", "command-palette", "editor-status",
                 "bookmarks", "outline", "word-count", "file-recovery", "sync")  # a fresh Obsidian's core plugins on
GENERATOR_VERSION = 2  # 2: .obsidian/ as a fresh Obsidian writes it (decision 125)
LAST_DAY = dt.date(2026, 11, 28)  # newest daily note; "today" for dates
MEMORY_UPDATED = "2026-11-29"
BUDGET_TOKENS = 40000
MAX_INDEX_ENTRIES = 300
MAX_PER_FOLDER = 500
CHUNK = 400
RARE_COUNT = 4000
RARE_RATE = 0.025  # share of body tokens drawn from the rare vocabulary
DANGLING_RATE = 0.01
_BIG_ENDIAN = sys.byteorder == "big"

# (type, folder, share of notes, sub-folder prefix)
TYPES = [
    ("person", "people", 0.09, "p"),
    ("project", "projects", 0.09, "j"),
    ("protocol", "protocols", 0.07, "k"),
    ("decision", "decisions", 0.15, "d"),
    ("reference", "references", 0.29, "r"),
    ("feedback", "feedback", 0.16, "f"),
    ("daily", "daily", 0.15, ""),
]
SECTION_TITLES = {
    "person": "People",
    "user": "People",
    "project": "Projects",
    "protocol": "Protocols",
    "decision": "Decisions",
    "reference": "References",
    "feedback": "Feedback",
}
SECTION_ORDER = ["People", "Projects", "Protocols", "Decisions", "References", "Feedback"]

# --------------------------------------------------------------------------- vocabulary

EN_FUNCTION = """the of and to a in is that for it with as on be this we was are not by at from or
have an but if will can should when so all about more do than then also only into our they which
there its use no new after before each has had been would what how one two some other just over""".split()

EN_CONTENT = """memory note user agent project search index file vault link graph token budget session
context decision protocol review deploy release build test query result error issue fix change update
config setting feature team meeting plan task status goal step rule preference feedback summary report
data model cache server client request response database schema backup sync version branch commit
merge migration rollback incident alert dashboard metric latency throughput queue worker job retry
timeout limit quota cost invoice payment refund ledger account customer partner vendor contract
deadline week month today tomorrow yesterday morning evening quarter roadmap milestone sprint backlog
ticket bug regression benchmark profile trace log warning failure outage recovery restore snapshot
storage bucket region network proxy certificate domain secret key password permission role owner
reviewer author draft outline slide talk workshop course lesson book article paper source reference
example template checklist guideline convention naming format style language tone answer question
idea risk tradeoff option alternative reason because however although instead always never often
usually sometimes quickly slowly carefully important urgent simple complex small large fast slow
stable flaky manual automatic local remote public private shared personal weekly daily monthly
annual first last next previous open closed done blocked pending active paused archived agreed
rejected proposed accepted keep drop prefer avoid remember forget check verify confirm explain
document write read send receive call ask reply schedule move split rename archive""".split()

PT_FUNCTION = """de a o que e do da em um para é com não uma os no se na por mais as dos como mas foi
ao ele das tem à seu sua ou ser quando muito há nos já está também só pelo pela até isso entre depois
sem mesmo aos ter seus quem nas esse eles estão você essa nem suas meu às minha têm numa pelos elas
seja qual será nós lhe deles essas esses este dele sobre ainda cada onde porque""".split()

PT_CONTENT = """memória nota usuário agente projeto busca índice arquivo cofre ligação grafo orçamento
sessão contexto decisão protocolo revisão implantação versão configuração função reunião equipe plano
tarefa situação objetivo passo regra preferência retorno resumo relatório dados modelo servidor
requisição resposta banco esquema cópia sincronização mudança atualização erro problema correção
teste consulta resultado prazo semana mês dia hoje amanhã ontem próximo último primeiro importante
necessário possível rápido lento simples difícil fácil código documentação página pagamento fatura
reembolso conta cliente parceiro fornecedor contrato migração reversão incidente alerta painel
métrica latência fila tentativa limite custo entrega lançamento manhã tarde noite trimestre meta
pendência bloqueio aprovação aprovado rejeitado proposto aceito manter evitar lembrar esquecer
verificar confirmar explicar escrever ler enviar receber ligar perguntar responder agendar mover
dividir renomear arquivar opção alternativa motivo risco ideia pergunta exemplo modelo lista
convenção formato estilo idioma português inglês viagem férias saúde família mudança apartamento
aluguel escola creche médico consulta horário quarta sexta sábado domingo feriado reunião conversa
combinado acordo proposta orçamento nuvem rede segurança senha permissão dono revisor autor
rascunho apresentação palestra oficina curso aula livro artigo fonte referência aplicação ação
atenção informação operação integração produção homologação automação execução validação""".split()

TECH = """python typer whoosh sqlite fts5 tantivy networkx obsidian markdown yaml json jsonl mcp claude
hook checkpoint cloudflare vercel docker kubernetes postgres redis nginx github gitlab pytest ruff mypy
pip venv linux macos vim vscode inotify watchdog http graphql oauth jwt s3 terraform ansible grafana
prometheus sentry stripe adyen fastapi django rails react typescript rust golang kafka rabbitmq celery
airflow dbt bigquery snowflake pandas numpy proxmox nextcloud tailscale wireguard cron systemd bash
zsh tmux git rebase cherry-pick webhook idempotency utf-8 unicode regex""".split()

FIRST_NAMES = """Ana João Maria José Pedro Lucas Mariana Beatriz Gabriel Rafael Camila Fernanda Bruno
Thiago Letícia Júlia Luís André Sérgio Cláudia Márcio Vinícius Patrícia Fábio Renata Rodrigo Carla
Tatiana Gustavo Larissa Inês Joana Rui Diego Marta Tomás Priya Alice Carol David Emma Frank Grace
Henry Irene Jack Karen Leo Mia Noah Olivia Paul Quinn Ruth Sam Tom Uma Victor Wendy Yara Zoe""".split()

LAST_NAMES = """Silva Santos Oliveira Souza Rodrigues Ferreira Alves Pereira Lima Gomes Costa Ribeiro
Martins Carvalho Almeida Lopes Soares Fernandes Vieira Barbosa Rocha Dias Nascimento Andrade Moreira
Nunes Marques Machado Mendes Freitas Cardoso Ramos Gonçalves Araújo Teixeira Correia Reis Matos
Smith Johnson Brown Taylor Miller Wilson Moore Clark Lewis Walker Hall Young King Wright Green
Baker Adams Nelson Carter Mitchell Okafor Raman Nakamura Müller Novak""".split()

ROLES = """tech lead|product manager|designer|backend engineer|frontend engineer|SRE|data engineer|
finance ops|contador|advogada|médico da família|landlord|mentor|recruiter|CTO|vizinho|
professora|cliente|fornecedor|orientador""".replace("\n", "").split("|")

VERBS = """adopt use drop migrate switch keep split merge cache pin limit batch rename review deploy
archive index retry refactor replace move shard freeze version vendor mirror schedule""".split()

HEADINGS = {
    "en": {
        "person": ["Context", "How they work", "Preferences", "Contact", "Open threads", "History", "Notes"],
        "project": ["Goals", "Status", "Stack", "People", "Risks", "Next steps", "Decisions", "Timeline"],
        "protocol": ["When", "Steps", "Rules", "Why", "Exceptions", "Checklist", "Examples"],
        "decision": ["Context", "Decision", "Options", "Consequences", "Why", "Follow-up"],
        "reference": ["Summary", "Details", "Links", "Commands", "Notes", "Gotchas", "Examples"],
        "feedback": ["What happened", "Rule", "Why", "How to apply", "Examples", "Notes"],
    },
    "pt": {
        "person": ["Contexto", "Como trabalha", "Preferências", "Contato", "Pendências", "Histórico", "Notas"],
        "project": ["Objetivos", "Situação", "Stack", "Pessoas", "Riscos", "Próximos passos", "Decisões", "Linha do tempo"],
        "protocol": ["Quando", "Passos", "Regras", "Por quê", "Exceções", "Checklist", "Exemplos"],
        "decision": ["Contexto", "Decisão", "Opções", "Consequências", "Por quê", "Acompanhamento"],
        "reference": ["Resumo", "Detalhes", "Links", "Comandos", "Notas", "Armadilhas", "Exemplos"],
        "feedback": ["O que aconteceu", "Regra", "Por quê", "Como aplicar", "Exemplos", "Notas"],
    },
}

BASE_TAGS = """infra deploy payments billing search memory agent tooling homelab health family travel
finance legal hiring talk writing reading learning ops security privacy data ml python rust frontend
backend mobile design product meeting incident postmortem idea todo saúde viagem família finanças
trabalho estudo casa""".split()
NESTED_TAGS = """status/active status/paused status/done status/blocked area/infra area/payments
area/personal area/community lang/pt lang/en team/payments team/platform team/data priority/high
priority/low project/atlas project/homelab type/adr review/pending""".split()

_STOPWORDS = frozenset(EN_FUNCTION + PT_FUNCTION)

_SYL_ONSETS = "b c d f g j k l m n p r s t v z br tr pl cr gr dr fl ch lh nh qu x".split()
_SYL_VOWELS = "a e i o u a e o".split()
_SYL_CODAS = ["", "", "", "", "n", "r", "s", "l", "m"]
_PT_SUFFIXES = ["ção", "ário", "ência", "ético", "ível", "ão", "ória", "ágico"]


def _fold(s: str) -> str:
    """ASCII-fold and lower-case (for slugs)."""
    return unicodedata.normalize("NFKD", s).encode("ascii", "ignore").decode("ascii").lower()


def rare_words(seed: int = 42, n: int = RARE_COUNT) -> list[str]:
    """The rare, generated-but-pronounceable vocabulary for ``seed``, most frequent first."""
    rng = random.Random(f"mdmem-rare:{seed}")
    common = set(EN_FUNCTION) | set(EN_CONTENT) | set(PT_FUNCTION) | set(PT_CONTENT) | set(TECH)
    seen: set[str] = set()
    out: list[str] = []
    while len(out) < n:
        w = "".join(
            rng.choice(_SYL_ONSETS) + rng.choice(_SYL_VOWELS) + rng.choice(_SYL_CODAS)
            for _ in range(rng.choice((2, 2, 3, 3, 3, 4)))
        )
        if rng.random() < 0.12:
            w = w.rstrip("aeiou") + rng.choice(_PT_SUFFIXES)
        if len(w) < 5 or w in common or w in seen or _fold(w) in seen:
            continue
        seen.add(w)
        seen.add(_fold(w))
        out.append(w)
    return out


class _Lang:
    """A Zipf-weighted vocabulary with a 65536-entry lookup table for fast draws."""

    __slots__ = ("code", "words", "content", "table", "headings")

    def __init__(self, code: str, function: list[str], content: list[str], rng: random.Random):
        self.code = code
        content = list(dict.fromkeys(content + TECH))
        rng.shuffle(content)
        self.content = content
        self.words = list(dict.fromkeys(function + content))
        weights = [1.0 / (r + 2.7) for r in range(len(self.words))]
        cum, acc = [], 0.0
        for w in weights:
            acc += w
            cum.append(acc)
        size = 1 << 16
        self.table = [
            self.words[min(bisect.bisect(cum, (j + 0.5) * acc / size), len(self.words) - 1)]
            for j in range(size)
        ]
        self.headings = HEADINGS[code]


def _draw(rng: random.Random, table: list[str], k: int) -> list[str]:
    a = array("H")
    a.frombytes(rng.randbytes(2 * k))
    if _BIG_ENDIAN:
        a.byteswap()
    return list(map(table.__getitem__, a))


# --------------------------------------------------------------------------- plan


class _Note:
    __slots__ = (
        "i", "type", "kind", "name", "title", "dir", "path", "headings", "description", "lang_pt",
        "target", "tags", "aliases", "created", "updated", "extra", "date",
    )


def _counts(n: int) -> list[int]:
    raw = [n * share for _, _, share, _ in TYPES]
    counts = [int(x) for x in raw]
    order = sorted(range(len(raw)), key=lambda j: (-(raw[j] - counts[j]), j))
    for j in order[: n - sum(counts)]:
        counts[j] += 1
    return counts


def _size_factor(rng: random.Random) -> float:
    if rng.random() < 0.003:
        return rng.uniform(10.0, 30.0)  # a few much bigger notes
    return min(3.0, max(0.3, math.exp(rng.gauss(-0.19, 0.55))))


def _plan(rng: random.Random, n: int, size: int, en: _Lang, pt: _Lang, rare: list[str]) -> list[_Note]:
    counts = _counts(n)
    kinds: list[int] = []
    for k, c in enumerate(counts):
        kinds.extend([k] * c)
    rng.shuffle(kinds)
    used: set[str] = set()
    per_kind = [0] * len(TYPES)
    daily_total = counts[-1]
    name_rare = rare[:1500]
    nouns = [w for w in EN_CONTENT if len(w) > 3] + TECH
    span_days = 730
    notes: list[_Note] = []

    def unique(slug: str) -> str:
        base, k = slug, 2
        while _fold(slug) in used:
            slug = f"{base}-{k}"
            k += 1
        used.add(_fold(slug))
        return slug

    for i, k in enumerate(kinds):
        typ, folder, _share, prefix = TYPES[k]
        idx = per_kind[k]
        per_kind[k] += 1
        note = _Note()
        note.i = i
        note.kind = typ
        note.type = typ
        note.lang_pt = rng.choice((0.0, 0.15, 0.5, 0.5, 0.85, 1.0))
        lang = pt if rng.random() < note.lang_pt else en
        note.extra = []
        note.aliases = []
        note.date = None
        if typ == "daily":
            day = LAST_DAY - dt.timedelta(days=idx)
            note.date = day
            note.name = day.isoformat()
            used.add(note.name)
            note.title = note.name
            sub = str(day.year) if daily_total > MAX_PER_FOLDER else ""
            note.dir = posixpath.join("memory", folder, sub) if sub else f"memory/{folder}"
            note.target = int(size * _size_factor(rng))
            hours = sorted(rng.sample(range(7 * 60, 23 * 60), rng.randint(2, max(2, min(6, note.target // 600)))))
            note.headings = [f"{h // 60:02d}:{h % 60:02d}" for h in hours]
            note.description = ""
            note.created = note.updated = day
            note.tags = ["daily"]
        else:
            if typ == "person":
                first, last = rng.choice(FIRST_NAMES), rng.choice(LAST_NAMES)
                note.title = f"{first} {last}"
                note.name = unique(_fold(f"{first}-{last}"))
                if idx == 0:
                    note.type = "user"
                note.aliases = [first, note.title] if rng.random() < 0.5 else []
                note.extra.append(f"role: {rng.choice(ROLES)}")
            elif typ == "project":
                parts = [rng.choice(name_rare)] + ([rng.choice(nouns)] if rng.random() < 0.6 else [])
                note.name = unique("-".join(_fold(p) for p in parts))
                note.title = note.name
                if rng.random() < 0.3:
                    note.aliases = [parts[0].capitalize()]
                note.extra.append(f"status: {rng.choice(('active', 'active', 'paused', 'done'))}")
            elif typ == "protocol":
                parts = [rng.choice(VERBS), rng.choice(nouns)] + ([rng.choice(nouns)] if rng.random() < 0.5 else [])
                note.name = unique("-".join(_fold(p) for p in parts))
                note.title = note.name
                if rng.random() < 0.3:
                    globs = rng.sample(["src/**/*.py", "tests/**", "docs/**/*.md", "*.toml", "infra/**", "migrations/*.sql"], 2)
                    note.extra.append("paths: [" + ", ".join(f'"{g}"' for g in globs) + "]")
            elif typ == "decision":
                parts = [rng.choice(VERBS), rng.choice(nouns), rng.choice(nouns + name_rare[:200])]
                note.name = unique("decision-" + "-".join(_fold(p) for p in parts))
                note.title = note.name
            elif typ == "reference":
                if rng.random() < 0.04:  # an Obsidian-style title with spaces and accents
                    lead = rng.choice(("Notas sobre", "Reunião com", "Guia de", "Notes on", "Meeting with"))
                    title = f"{lead} {rng.choice(lang.content)} {rng.choice(name_rare)}"
                    note.name = unique(title)
                else:
                    parts = [rng.choice(nouns), rng.choice(name_rare + nouns)]
                    if rng.random() < 0.4:
                        parts.append(rng.choice(nouns))
                    note.name = unique("-".join(_fold(p) for p in parts))
                note.title = note.name
            else:  # feedback
                parts = [rng.choice(VERBS), rng.choice(nouns)]
                note.name = unique("feedback-" + "-".join(_fold(p) for p in parts))
                note.title = note.name
                if rng.random() < 0.3:
                    note.aliases = [" ".join(parts)]
            count = counts[k]
            if count > MAX_PER_FOLDER:
                note.dir = f"memory/{folder}/{prefix}{idx // CHUNK:03d}"
            else:
                note.dir = f"memory/{folder}"
            hs = lang.headings[typ]
            note.target = int(size * _size_factor(rng))
            note.headings = rng.sample(hs, rng.randint(2, max(2, min(5, len(hs), note.target // 700))))
            stop = _STOPWORDS
            desc = [w for w in _draw(rng, lang.table, rng.randint(8, 18)) if w not in stop or rng.random() < 0.3]
            desc = desc[:12] or [rng.choice(lang.content)]
            if len(desc) > 3 and rng.random() < 0.3:
                desc.insert(rng.randint(1, len(desc) - 1), "—")
            if rng.random() < 0.3:
                desc.insert(rng.randint(0, len(desc)), rng.choice(name_rare))
            if note.type in ("person", "user"):
                desc = [note.title, "—"] + desc
            else:
                desc[0] = desc[0].capitalize()
            note.description = " ".join(desc)
            c = LAST_DAY - dt.timedelta(days=rng.randrange(span_days))
            note.created = c
            note.updated = c + dt.timedelta(days=int((LAST_DAY - c).days * rng.random() ** 0.5))
            note.tags = [typ] + rng.sample(BASE_TAGS, rng.randint(0, 2)) + (
                [rng.choice(NESTED_TAGS)] if rng.random() < 0.35 else []
            )
        note.path = f"{note.dir}/{note.name}.md"
        notes.append(note)
    return notes


# --------------------------------------------------------------------------- links


class _Linker:
    def __init__(self, rng: random.Random, notes: list[_Note], rare: list[str]):
        self.rng = rng
        self.notes = notes
        cands = [nt for nt in notes if nt.kind != "daily"]
        order = list(range(len(cands)))
        rng.shuffle(order)
        type_boost = {"project": 3.0, "person": 2.0, "user": 6.0, "protocol": 1.5}
        cum, acc = [], 0.0
        weighted, weights = [], []
        for rank, j in enumerate(order):  # power law over a random order, boosted by type
            nt = cands[j]
            wt = type_boost.get(nt.type, 1.0) / (rank + 20) ** 0.85
            acc += wt
            cum.append(acc)
            weighted.append(nt)
            weights.append(wt)
        self.targets = weighted
        self.cum = cum
        top = sorted(range(len(weighted)), key=lambda r: (-weights[r], r))[:10]
        self.hubs = [weighted[r] for r in top]
        self.rare = rare
        self.rel_cache: dict[tuple[str, str], str] = {}
        self.names = {_fold(nt.name) for nt in notes}

    def pick(self, src: _Note, k: int) -> list[_Note]:
        if not self.targets:
            return []
        picked = self.rng.choices(self.targets, cum_weights=self.cum, k=k + 2)
        out = list(dict.fromkeys(nt for nt in picked if nt is not src))
        return out[:k]

    def dangling(self) -> str:
        rng = self.rng
        while True:
            name = f"{rng.choice(('meeting', 'idea', 'todo', 'draft', 'notes'))}-{_fold(rng.choice(self.rare))}"
            if _fold(name) not in self.names:
                return name

    def rel(self, src: _Note, tgt: _Note) -> str:
        key = (src.dir, tgt.dir)
        prefix = self.rel_cache.get(key)
        if prefix is None:
            prefix = posixpath.relpath(tgt.dir, src.dir)
            prefix = "" if prefix == "." else prefix + "/"
            if not prefix and self.rng.random() < 0.5:
                prefix = "./"
            self.rel_cache[key] = prefix
        return prefix + tgt.name.replace(" ", "%20") + ".md"

    def render(self, src: _Note, tgt: _Note | None, en: _Lang) -> str:
        rng = self.rng
        if tgt is None or rng.random() < DANGLING_RATE:
            return f"[[{self.dangling()}]]"
        r = rng.random()
        if r < 0.60:
            return f"[[{tgt.name}]]"
        if r < 0.70:
            shown = tgt.title.split(" ")[0] if tgt.type in ("person", "user") else " ".join(_draw(rng, en.table, 2))
            return f"[[{tgt.name}|{shown}]]"
        if r < 0.78:
            return f"[[{tgt.name}#{rng.choice(tgt.headings)}]]"
        if r < 0.81:
            return f"![[{tgt.name}]]"
        if r < 0.93:
            path = self.rel(src, tgt)
            if " " in tgt.name and rng.random() < 0.5:
                path = "<" + path.replace("%20", " ") + ">"
            return f"[{tgt.title}]({path})"
        if r < 0.96:
            return f"[[{tgt.name}.md]]"
        return f"[[{tgt.dir.split('/', 1)[1]}/{tgt.name}]]"


# --------------------------------------------------------------------------- body


class _Writer:
    def __init__(self, rng: random.Random, en: _Lang, pt: _Lang, rare: list[str]):
        self.rng = rng
        self.en = en
        self.pt = pt
        self.rare = rare
        cum, acc = [], 0.0
        for r in range(len(rare)):
            acc += 1.0 / (r + 1)
            cum.append(acc)
        self.rare_cum = cum
        # pre-drawn word streams, consumed in order (deterministic, and far fewer calls)
        self.buf: dict[str, tuple[list[str], int]] = {"en": ([], 0), "pt": ([], 0)}
        self.rare_buf: tuple[list[str], int] = ([], 0)

    def _tokens(self, lang: _Lang, n: int, note_rare: set[str]) -> tuple[list[str], int]:
        """``n`` words of ``lang`` with ~RARE_RATE rare words mixed in, and their size + spaces."""
        rand = self.rng.random
        buf, pos = self.buf[lang.code]
        if pos + n > len(buf):
            buf, pos = _draw(self.rng, lang.table, max(1 << 16, n)), 0
        toks = buf[pos : pos + n]
        self.buf[lang.code] = (buf, pos + n)
        m = int(n * RARE_RATE + rand())
        if m:
            rbuf, rpos = self.rare_buf
            if rpos + m > len(rbuf):
                rbuf, rpos = self.rng.choices(self.rare, cum_weights=self.rare_cum, k=max(4096, m)), 0
            words = rbuf[rpos : rpos + m]
            self.rare_buf = (rbuf, rpos + m)
            note_rare.update(words)
            for w in words:
                toks[int(rand() * n)] = w
        return toks, sum(map(len, toks)) + n

    def paragraph(self, lang: _Lang, count: int, note_rare: set[str]) -> tuple[str, int]:
        """A paragraph of ``count`` sentences, and its size in characters."""
        rand = self.rng.random
        lens = [5 + int(rand() * 14) for _ in range(count)]
        toks, nbytes = self._tokens(lang, sum(lens), note_rare)
        pos = 0
        for ln in lens:
            toks[pos] = toks[pos].capitalize()
            if ln > 10 and rand() < 0.4:
                j = pos + 3 + int(rand() * (ln - 5))
                toks[j] += ","
            pos += ln
            toks[pos - 1] += "."
        return " ".join(toks), nbytes + count

    def bullets(self, lang: _Lang, count: int, note_rare: set[str], ordered: bool, tags: list[str]) -> tuple[str, int]:
        """A bullet (or numbered) list of ``count`` items, and its size in characters."""
        rand = self.rng.random
        lens = [3 + int(rand() * 10) for _ in range(count)]
        toks, nbytes = self._tokens(lang, sum(lens), note_rare)
        lines, pos = [], 0
        for k, ln in enumerate(lens):
            first = toks[pos].capitalize()
            if rand() < 0.15 and toks[pos] not in _STOPWORDS:
                first = f"**{first}**:"
            toks[pos] = f"{k + 1}. {first}" if ordered else f"- {first}"
            lines.append(" ".join(toks[pos : pos + ln]))
            pos += ln
        if rand() < 0.3:
            k = int(rand() * count)
            lines[k] += " #" + tags[int(rand() * len(tags))]
        return "\n".join(lines), nbytes + 3 * count


def _insert_at_spaces(rng: random.Random, text: str, inserts: list[str]) -> str:
    """Insert each string at a random word boundary of ``text`` (positions taken before inserting)."""
    size = len(text)
    at = []
    for k, ins in enumerate(inserts):
        j = text.find(" ", int(rng.random() * size))
        at.append((j if j >= 0 else size, k, ins))
    at.sort()
    pieces, prev = [], 0
    for j, _k, ins in at:
        pieces.append(text[prev:j])
        pieces.append(" " + ins)
        prev = j
    pieces.append(text[prev:])
    return "".join(pieces)


def _yaml_list(rng: random.Random, key: str, values: list[str]) -> str:
    if rng.random() < 0.6:
        return f"{key}: [" + ", ".join(values) + "]"
    return f"{key}:\n" + "".join(f"  - {v}\n" for v in values).rstrip("\n")


def _frontmatter(rng: random.Random, note: _Note, related: str | None) -> str:
    lines = [f"name: {note.name}"]
    if note.kind == "daily":
        lines = ["type: daily", f"created: {note.created.isoformat()}"]
        if rng.random() < 0.3:
            lines.append("tags: [daily]")
        return "---\n" + "\n".join(lines) + "\n---\n"
    if " " in note.name:
        lines = [f'name: "{note.name}"']
    lines.append(f"description: {note.description}")
    if note.type == "user" or rng.random() < 0.95:
        lines.append(f"type: {note.type}")
    tags = list(dict.fromkeys(note.tags))
    r = rng.random()
    if r < 0.04:
        lines.append(f"tags: {tags[0]}")
    elif r < 0.08:
        lines.append("tags: [" + ", ".join(f'"#{t}"' for t in tags) + "]")
    else:
        lines.append(_yaml_list(rng, "tags", tags))
    if note.aliases:
        lines.append(_yaml_list(rng, "aliases", note.aliases))
    lines.extend(note.extra)
    if related:
        lines.append(f'related: "{related}"')
    lines.append(f"created: {note.created.isoformat()}")
    lines.append(f"updated: {note.updated.isoformat()}")
    return "---\n" + "\n".join(lines) + "\n---\n"


_CODE_BLOCKS = [
    "```bash\nmdmem search \"[[{n}]]\" --json | jq '.hits[0]'\n```",
    "```python\nLINK = re.compile(r\"\\[\\[([^\\]|#]+)\")\nassert LINK.findall(\"see [[{n}]]\") == [\"{n}\"]\n```",
    "```yaml\n# not a link: [[{n}]]\nrelated: \"[[not-a-link]]\"\n```",
    "```\n[[not-a-link]] and #not-a-tag stay literal inside code\n```",
]


def _body(w: _Writer, linker: _Linker, note: _Note, nlinks: list[str], budget: int, note_rare: set[str]) -> str:
    rng = w.rng
    rand = rng.random
    pt_ratio = note.lang_pt
    blocks: list[str] = []
    text_blocks: list[int] = []  # indices of paragraphs and lists (they receive links)
    daily = note.kind == "daily"
    nsec = len(note.headings)
    per_sec = budget // max(1, nsec)
    tag_pool = note.tags + NESTED_TAGS
    ordered_lists = note.kind == "protocol"

    def lang() -> _Lang:
        return w.pt if rand() < pt_ratio else w.en

    if not daily:
        text, _n = w.paragraph(lang(), 1 + int(rand() * 3), note_rare)
        text_blocks.append(len(blocks))
        blocks.append(text)
    for h in note.headings:
        if daily:
            words = _draw(rng, lang().table, 2 + int(rand() * 4))
            blocks.append(f"## {h} — {' '.join(words)}")
        else:
            blocks.append(f"## {h}")
        sec = 0
        while not sec or sec + 40 < per_sec:
            lg = lang()
            room = per_sec - sec
            if rand() < 0.62:
                text, n = w.paragraph(lg, min(2 + int(rand() * 5), max(1, room // 80)), note_rare)
            else:
                ordered = ordered_lists and rand() < 0.6
                text, n = w.bullets(lg, min(2 + int(rand() * 6), max(1, room // 55)), note_rare, ordered, tag_pool)
            text_blocks.append(len(blocks))
            blocks.append(text)
            sec += n + 2

    # links (and now and then inline code holding a fake link) at word boundaries of random blocks
    inserts = list(nlinks)
    if rand() < 0.05:
        inserts.append(f"`[[{rng.choice(('not-a-link', note.name))}]]`")
    by_block: dict[int, list[str]] = {}
    for ins in inserts:
        b = text_blocks[int(rand() * len(text_blocks))]
        by_block.setdefault(b, []).append(ins)
    for b, ins in by_block.items():
        blocks[b] = _insert_at_spaces(rng, blocks[b], ins)

    if rand() < 0.05:
        target = rng.choice(linker.targets).name if linker.targets else "not-a-link"
        blocks.insert(1 + int(rand() * len(blocks)), rng.choice(_CODE_BLOCKS).replace("{n}", target))
    if rand() < 0.3:
        blocks.append(" ".join("#" + t for t in rng.sample(tag_pool, 2)))
    return "\n\n".join(blocks) + "\n"


def _table(rng: random.Random, links: list[_Note], lang: _Lang) -> str:
    rows = ["| Item | Who | Status |", "| --- | --- | --- |"]
    for tgt in links:
        shown = tgt.title.split(" ")[0] if tgt.type in ("person", "user") else tgt.name.split("-")[-1]
        word = " ".join(_draw(rng, lang.table, 2))
        rows.append(f"| {word} | [[{tgt.name}\\|{shown}]] | {rng.choice(('ok', 'todo', 'blocked', 'feito', 'pendente'))} |")
    return "\n".join(rows)


def _render_note(w: _Writer, linker: _Linker, note: _Note, note_rare: set[str]) -> str:
    rng = w.rng
    if note.target > 15000:
        nlink = rng.randint(5, 15) + int(note.target / 3000)
    else:
        nlink = rng.randint(5, 15)
    targets = linker.pick(note, nlink)
    related = None
    if note.kind != "daily" and targets and rng.random() < 0.25:
        related = f"[[{targets[0].name}]]"
        targets = targets[1:]
    table_links: list[_Note] = []
    if note.kind in ("project", "reference") and len(targets) > 4 and rng.random() < 0.15:
        table_links, targets = targets[:3], targets[3:]
    rendered = [linker.render(note, t, w.en) for t in targets]
    fm = _frontmatter(rng, note, related) if (note.kind != "daily" or rng.random() < 0.6) else ""
    head = f"# {note.title}\n\n"
    budget = int((note.target - len(fm) - len(head) - 24 * len(rendered) - 40) / 1.1)
    body = _body(w, linker, note, rendered, budget, note_rare)
    if table_links:
        body += "\n" + _table(rng, table_links, w.en) + "\n"
    return fm + head + body


# --------------------------------------------------------------------------- MEMORY.md


def _memory_md(notes: list[_Note], sizes: list[int]) -> str:
    sections: dict[str, list[str]] = {s: [] for s in SECTION_ORDER}
    taken = 0
    user = [nt for nt in notes if nt.type == "user"]  # the user's own note is always indexed
    for nt in user + [nt for nt in notes if nt.type != "user"]:
        if nt.kind == "daily":
            continue
        if taken >= MAX_INDEX_ENTRIES:
            break
        taken += 1
        tk = int(sizes[nt.i] / 3.2)
        href = nt.path.replace(" ", "%20")
        sections[SECTION_TITLES[nt.type]].append(f"- [{nt.name}.md]({href}) — {nt.description} `~{tk}tk`")
    parts = ["# Memory", ""]
    for title in SECTION_ORDER:
        if sections[title]:
            parts.append(f"## {title}")
            parts.extend(sections[title])
            parts.append("")
    body = "\n".join(parts)
    tk = 0
    for _ in range(4):  # the comment's own length feeds back into the estimate
        header = (
            f"<!-- budget: ~{tk}tk / {BUDGET_TOKENS}tk ({round(tk * 100 / BUDGET_TOKENS)}%) "
            f"| updated: {MEMORY_UPDATED} -->\n"
        )
        new = int(len((header + body).encode("utf-8")) / 3.2)
        if new == tk:
            break
        tk = new
    return header + body


# --------------------------------------------------------------------------- query terms


def _query_terms(seed: int, en: _Lang, pt: _Lang, df: dict[str, int]) -> list[str]:
    rng = random.Random(f"mdmem-queries:{seed}")
    en_common = [w for w in en.content[:120] if w not in TECH and len(w) > 3]
    pt_common = [w for w in pt.content[:150] if w not in TECH and len(w) > 3]
    pt_accented = [w for w in pt.content if w != _fold(w)]
    tech = sorted(TECH)
    present = sorted(df.items(), key=lambda kv: (kv[1], kv[0]))
    buckets = [(1, 2), (3, 10), (11, 50), (51, 300), (301, 10**9)]
    rare_by_bucket = [[w for w, c in present if lo <= c <= hi] for lo, hi in buckets]
    rare_pool = [w for w, c in present if 11 <= c <= 300] or [w for w, _ in present]

    def some(pool: list[str], k: int) -> list[str]:
        return rng.sample(pool, min(k, len(pool))) if pool else []

    q: list[str] = []
    q += some(en_common, 8)
    q += some(pt_common, 4)
    q += some(pt_accented, 6)
    q += some(tech, 3)
    for b, k in zip(rare_by_bucket, (3, 4, 4, 3, 2)):
        q += some(b, k)
    for _ in range(5):
        q.append(f"{rng.choice(en_common)} {rng.choice(en_common)}")
    for _ in range(4):
        q.append(f"{rng.choice(pt_accented)} {rng.choice(pt_common)}")
    for _ in range(4):
        if rare_pool:
            q.append(f"{rng.choice(en_common + pt_common)} {rng.choice(rare_pool)}")
    for _ in range(3):
        q.append(" ".join(rng.sample(en_common, 3)))
    for _ in range(3):
        q.append(" ".join([rng.choice(pt_accented)] + rng.sample(pt_common, 2)))
    return list(dict.fromkeys(q))


# --------------------------------------------------------------------------- driver


def _prepare(out: Path, force: bool) -> None:
    if out.is_symlink() or (out.exists() and not out.is_dir()):
        raise FileExistsError(f"{out} exists and is not a directory")
    if out.exists():
        entries = sorted(out.iterdir())
        if entries:
            if not force:
                raise FileExistsError(f"{out} is not empty (use --force to regenerate a vault made by gen_vault)")
            if not (out / MARKER).is_file():
                raise FileExistsError(f"{out} has no {MARKER} marker; refusing to wipe it")
            for e in entries:
                if e.is_dir() and not e.is_symlink():
                    shutil.rmtree(e)
                else:
                    e.unlink()
    out.mkdir(parents=True, exist_ok=True)


def generate(out_dir: Path, notes: int, seed: int = 42, size: int = 3000, force: bool = False) -> dict:
    """Write a synthetic vault to ``out_dir`` and describe it.

    Returns ``{"notes", "bytes", "seconds", "paths", "query_terms", "out_dir", "hubs"}``:
    ``bytes`` counts every Markdown file (notes + MEMORY.md); ``paths`` are the notes'
    vault-relative POSIX paths; ``hubs`` the ten most-linked-to notes by design.
    Raises ``FileExistsError`` for a non-empty ``out_dir`` (unless ``force`` and it
    holds the marker of an earlier run) and ``ValueError`` for bad arguments.
    """
    if notes < 1 or size < 100:
        raise ValueError("notes must be >= 1 and size >= 100")
    t0 = time.perf_counter()
    out = Path(out_dir)
    _prepare(out, force)
    (out / MARKER).write_text(
        json.dumps({"generator": "mdmem gen_vault", "version": GENERATOR_VERSION, "notes": notes,
                    "seed": seed, "size": size}, sort_keys=True) + "\n",
        encoding="utf-8",
    )
    rng = random.Random(seed)
    rare = rare_words(seed)
    en = _Lang("en", EN_FUNCTION, EN_CONTENT, rng)
    pt = _Lang("pt", PT_FUNCTION, PT_CONTENT, rng)
    plan = _plan(rng, notes, size, en, pt, rare)
    linker = _Linker(rng, plan, rare)
    writer = _Writer(rng, en, pt, rare)
    for d in sorted({nt.dir for nt in plan}):
        (out / d).mkdir(parents=True, exist_ok=True)
    sizes = [0] * len(plan)
    df: dict[str, int] = {}
    total = 0
    for nt in plan:
        note_rare: set[str] = set()
        data = _render_note(writer, linker, nt, note_rare).encode("utf-8")
        for word in note_rare:
            df[word] = df.get(word, 0) + 1
        with open(out / nt.path, "wb") as f:
            f.write(data)
        sizes[nt.i] = len(data)
        total += len(data)
    mem = _memory_md(plan, sizes).encode("utf-8")
    (out / "MEMORY.md").write_bytes(mem)
    total += len(mem)
    (out / ".obsidian").mkdir(exist_ok=True)
    (out / ".obsidian" / "app.json").write_text("{}", encoding="utf-8")
    (out / ".obsidian" / "core-plugins.json").write_text(json.dumps(dict.fromkeys(OBSIDIAN_CORE, True), indent=2),
                                                         encoding="utf-8")
    return {
        "out_dir": str(out),
        "notes": len(plan),
        "bytes": total,
        "seconds": round(time.perf_counter() - t0, 3),
        "paths": [nt.path for nt in plan],
        "hubs": [nt.path for nt in linker.hubs],
        "query_terms": _query_terms(seed, en, pt, df),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Generate a deterministic synthetic mdmem vault for benchmarks.")
    ap.add_argument("out_dir", type=Path)
    ap.add_argument("--notes", type=int, default=10000, help="number of notes (default 10000)")
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--size", type=int, default=3000, help="average note size in bytes (default 3000)")
    ap.add_argument("--force", action="store_true",
                    help=f"wipe OUT_DIR first (only if it holds the {MARKER} marker of an earlier run)")
    args = ap.parse_args(argv)
    try:
        info = generate(args.out_dir, args.notes, seed=args.seed, size=args.size, force=args.force)
    except (FileExistsError, ValueError) as e:
        print(f"gen_vault: {e}", file=sys.stderr)
        return 2
    print(
        f"gen_vault: {info['notes']} notes + MEMORY.md, {info['bytes']:,} bytes "
        f"({info['bytes'] / info['notes']:.0f} B/note) in {info['seconds']:.2f} s",
        file=sys.stderr,
    )
    print(info["out_dir"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
