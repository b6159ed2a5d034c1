#!/usr/bin/env python3
"""Generate a long, realistic Claude Code JSONL transcript for checkpoint benchmarks and tests.

Standard library only. Same arguments -> byte-identical output. Importing this module has no
side effects.

    python scripts/gen_transcript.py OUT.jsonl --mb 2.7 [--seed N] [--lang en|pt|mix]
    python scripts/gen_transcript.py OUT.jsonl --append-turns K [--seed N] [--lang en|pt|mix]

The first form (over)writes OUT.jsonl with a transcript of ``mb`` megabytes (1 MB = 1,000,000
bytes; the size is matched exactly whenever ``mb`` >= 0.05; below about 0.04 MB the fixed minimum
content makes the file larger than asked). The second form
appends K more turns to an existing transcript, continuing its session, ``parentUuid`` chain
and clock, to simulate a session that grows between two Stop hooks; the last appended turn
always ends with a task closure (tests pass).

What the file holds, modelled on real Claude Code 2.1.x session files:

- ``user`` prompt records (string content) preceded by a ``file-history-snapshot``;
- assistant messages written as several records that share ``message.id``, one content block
  each: ``thinking`` (with signature), ``text`` (sometimes split over two records), ``tool_use``;
- ``tool_result`` user records with ``toolUseResult`` (large file reads with ``N→`` line
  numbers, pytest output, git diffs, grep hits, Edit results with the original file);
- ``progress`` hook records around tool calls, ``system`` ``stop_hook_summary`` records,
  snapshot updates after edits, ``queue-operation``, occasional ``isMeta`` records (local
  command caveats with ``<command-name>`` wrappers, Stop hook feedback);
- a few memory-worthy moments: an architectural decision with a reason, a user correction of
  a practice, a milestone (release/deploy), placed at about 22 %, 50 % and 78 % of the file.
  Most coding turns end with a task closure backed by a passing test run.

Library use (tests import this file through importlib)::

    info = generate(Path("/tmp/t.jsonl"), mb=2.7, seed=1, lang="mix")
    info["bytes"], info["records"], info["turns"], info["moments"]
    append_turns(Path("/tmp/t.jsonl"), turns=3, seed=7, lang="en")

``moments`` lists ``{"kind": "decision"|"correction"|"milestone", "lang": ..., "uuid": ...,
"text": ...}`` for the inserted user records.
"""

from __future__ import annotations

import argparse
import base64
import datetime as dt
import json
import random
import sys
import time
import uuid as uuidlib
from pathlib import Path

__all__ = ["MB", "Session", "append_turns", "generate"]

MB = 1_000_000
VERSION = "2.1.38"
MODEL = "claude-opus-4-6"
BASE_TIME = dt.datetime(2026, 2, 10, 9, 0, 0, tzinfo=dt.UTC)


def _dumps(record: dict) -> str:
    return json.dumps(record, ensure_ascii=False, separators=(",", ":"))


# --------------------------------------------------------------------------- record builder


class Session:
    """Builds Claude Code records in order, keeping the parentUuid chain and the clock."""

    def __init__(
        self,
        rng: random.Random,
        *,
        session_id: str | None = None,
        cwd: str = "/home/dev/projects/app",
        version: str = VERSION,
        branch: str = "main",
        slug: str = "quiet-running-otter",
        start: dt.datetime = BASE_TIME,
        parent: str | None = None,
    ) -> None:
        self.rng = rng
        self.session_id = session_id or self.new_uuid()
        self.cwd = cwd
        self.version = version
        self.branch = branch
        self.slug = slug
        self.now = start
        self.parent = parent
        self.records: list[dict] = []
        self.raw_lines: dict[int, str] = {}  # index in records -> literal line (malformed)

    # -- ids and clock
    def new_uuid(self) -> str:
        return str(uuidlib.UUID(int=self.rng.getrandbits(128), version=4))

    def _b58(self, n: int) -> str:
        alphabet = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
        return "".join(alphabet[self.rng.randrange(58)] for _ in range(n))

    def msg_id(self) -> str:
        return "msg_01" + self._b58(22)

    def tool_id(self) -> str:
        return "toolu_01" + self._b58(22)

    def req_id(self) -> str:
        return "req_011C" + self._b58(20)

    def tick(self, lo: float = 0.05, hi: float = 2.0) -> str:
        self.now += dt.timedelta(milliseconds=int(self.rng.uniform(lo, hi) * 1000))
        return self.now.strftime("%Y-%m-%dT%H:%M:%S.") + f"{self.now.microsecond // 1000:03d}Z"

    # -- plumbing
    def _base(self, type_: str, *, slug: bool = True) -> dict:
        rec = {
            "parentUuid": self.parent,
            "isSidechain": False,
            "userType": "external",
            "cwd": self.cwd,
            "sessionId": self.session_id,
            "version": self.version,
            "gitBranch": self.branch,
        }
        if slug and self.slug:
            rec["slug"] = self.slug
        rec["type"] = type_
        return rec

    def _push(self, rec: dict, *, chain: bool = True) -> dict:
        self.records.append(rec)
        if chain and "uuid" in rec:
            self.parent = rec["uuid"]
        return rec

    # -- records
    def queue_operation(self, op: str = "dequeue") -> dict:
        return self._push(
            {
                "type": "queue-operation",
                "operation": op,
                "timestamp": self.tick(),
                "sessionId": self.session_id,
            },
            chain=False,
        )

    def summary(self, text: str) -> dict:
        return self._push({"type": "summary", "summary": text, "leafUuid": self.new_uuid()}, chain=False)

    def snapshot(self, message_id: str, files: dict[str, int] | None = None, update: bool = False) -> dict:
        stamp = self.tick(0.01, 0.05)
        backups = {
            name: {
                "backupFileName": f"{self.rng.getrandbits(64):016x}@v{v}" if v > 1 else None,
                "version": v,
                "backupTime": stamp,
            }
            for name, v in (files or {}).items()
        }
        return self._push(
            {
                "type": "file-history-snapshot",
                "messageId": message_id,
                "snapshot": {"messageId": message_id, "trackedFileBackups": backups, "timestamp": stamp},
                "isSnapshotUpdate": update,
            },
            chain=False,
        )

    def progress(self, event: str, name: str, command: str, tool_use_id: str) -> dict:
        rec = self._base("progress")
        rec.update(
            {
                "data": {"type": "hook_progress", "hookEvent": event, "hookName": name, "command": command},
                "parentToolUseID": tool_use_id,
                "toolUseID": tool_use_id,
                "timestamp": self.tick(0.01, 0.2),
                "uuid": self.new_uuid(),
            }
        )
        return self._push(rec)

    def user(
        self,
        content,
        *,
        extra: dict | None = None,
        uid: str | None = None,
        chain: bool = True,
        wait: tuple[float, float] = (5, 90),
    ) -> dict:
        rec = self._base("user")
        rec["message"] = {"role": "user", "content": content}
        if extra:
            rec.update(extra)
        rec["uuid"] = uid or self.new_uuid()
        rec["timestamp"] = self.tick(*wait)
        return self._push(rec, chain=chain)

    def prompt(self, text: str, *, snapshot: bool = True) -> dict:
        uid = self.new_uuid()
        if snapshot:
            self.snapshot(uid)
        extra = {
            "thinkingMetadata": {"maxThinkingTokens": 31999},
            "todos": [],
            "permissionMode": "acceptEdits",
        }
        return self.user(text, extra=extra, uid=uid)

    def meta(self, text: str, *, as_blocks: bool = False) -> dict:
        content = [{"type": "text", "text": text}] if as_blocks else text
        return self.user(content, extra={"isMeta": True})

    def stop_feedback(self, text: str | None = None) -> dict:
        text = text or (
            "Stop hook feedback:\n[${CLAUDE_PLUGIN_ROOT}/scripts/hooks/stop.sh]: # Task Completion Check\n\n"
            "Before exiting, carefully analyze whether you have fully completed the task.\n\n"
            "If you have NOT completed the task:\n  - Continue working to finish it\n\n"
            "If you HAVE completed the task:\n  - Provide a clear, concise summary of what was done for the user\n"
            "  - Then stop again to exit\n"
        )
        return self.meta(text)

    def local_command(self, name: str, args: str = "", stdout: str = "") -> list[dict]:
        """The three user records Claude Code writes for a local slash command."""
        out = [
            self.meta(
                "Caveat: The messages below were generated by the user while running local commands. "
                "DO NOT respond to these messages or otherwise consider them in your response unless "
                "the user explicitly asks you to."
            ),
            self.user(
                f"<command-name>/{name}</command-name>\n            <command-message>{name}</command-message>\n"
                f"            <command-args>{args}</command-args>"
            ),
            self.user(f"<local-command-stdout>{stdout}</local-command-stdout>"),
        ]
        return out

    def system(self, subtype: str, **fields) -> dict:
        rec = self._base("system")
        rec["subtype"] = subtype
        rec.update(fields)
        rec["timestamp"] = self.tick(0.05, 0.5)
        rec["uuid"] = self.new_uuid()
        return self._push(rec)

    def stop_hook_summary(self) -> dict:
        return self.system(
            "stop_hook_summary",
            hookCount=2,
            hookInfos=[{"command": "~/.claude/hooks/notify.sh"}, {"command": "mdmem checkpoint --hook"}],
            hookErrors=[],
            preventedContinuation=False,
            stopReason="",
            hasOutput=False,
            level="suggestion",
            toolUseID=self.new_uuid(),
        )

    def compact(self, summary_text: str) -> list[dict]:
        boundary = self.system(
            "compact_boundary",
            content="Conversation compacted",
            isMeta=False,
            level="info",
            compactMetadata={"trigger": "auto", "preTokens": 167_412},
        )
        boundary["logicalParentUuid"] = boundary["parentUuid"]
        boundary["parentUuid"] = None
        text = (
            "This session is being continued from a previous conversation that ran out of context. "
            "The conversation is summarized below:\n" + summary_text
        )
        rec = self.user(text, extra={"isVisibleInTranscriptOnly": True, "isCompactSummary": True})
        return [boundary, rec]

    def assistant(self, blocks: list[tuple], *, results: dict[int, tuple] | None = None) -> list[dict]:
        """One assistant message: one record per block, all sharing message.id.

        blocks: ("text", s) | ("thinking", s) | ("tool", name, input_dict)
        results: block index -> (content, toolUseResult, is_error) for tool blocks; tool results are
        written after the message's records, each followed by PostToolUse progress.
        """
        mid, req = self.msg_id(), self.req_id()
        out, pending = [], []
        for i, block in enumerate(blocks):
            kind = block[0]
            if kind == "text":
                content = {"type": "text", "text": block[1]}
            elif kind == "thinking":
                sig = base64.b64encode(self.rng.randbytes(self.rng.randrange(180, 420))).decode()
                content = {"type": "thinking", "thinking": block[1], "signature": sig}
            elif kind == "tool":
                tid = self.tool_id()
                content = {"type": "tool_use", "id": tid, "name": block[1], "input": block[2]}
            else:  # pragma: no cover - programming error
                raise ValueError(kind)
            rec = self._base("assistant")
            del rec["type"]
            rec["message"] = {
                "model": MODEL,
                "id": mid,
                "type": "message",
                "role": "assistant",
                "content": [content],
                "stop_reason": None,
                "stop_sequence": None,
                "usage": {
                    "input_tokens": self.rng.randrange(1, 9),
                    "cache_creation_input_tokens": self.rng.randrange(100, 6000),
                    "cache_read_input_tokens": self.rng.randrange(10_000, 120_000),
                    "cache_creation": {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 0},
                    "output_tokens": self.rng.randrange(1, 900),
                    "service_tier": "standard",
                    "inference_geo": "not_available",
                },
            }
            rec["requestId"] = req
            rec["type"] = "assistant"
            rec["uuid"] = self.new_uuid()
            rec["timestamp"] = self.tick(0.3, 6)
            self._push(rec)
            out.append(rec)
            if kind == "tool":
                self.progress("PreToolUse", f"PreToolUse:{block[1]}", "callback", content["id"])
                if results and i in results:
                    pending.append((rec, content, results[i]))
        for rec, content, (res, tur, is_error) in pending:
            self.parent = rec["uuid"]
            body = {"tool_use_id": content["id"], "type": "tool_result", "content": res}
            if is_error is not None:
                body["is_error"] = is_error
            extra = {"toolUseResult": tur, "sourceToolAssistantUUID": rec["uuid"]}
            r = self.user([body], extra=extra, wait=(0.1, 8))
            out.append(r)
            self.progress("PostToolUse", f"PostToolUse:{content['name']}", "callback", content["id"])
        return out

    def malformed(self, record: dict, keep: float = 0.6) -> None:
        """A truncated line (a writer killed mid-write). Does not join the chain."""
        line = _dumps(record)
        self.raw_lines[len(self.records)] = line[: max(20, int(len(line) * keep))]
        self.records.append(record)

    def lines(self, start: int = 0) -> list[str]:
        return [self.raw_lines.get(i) or _dumps(r) for i, r in enumerate(self.records[start:], start)]


# --------------------------------------------------------------------------- vocabulary

MODULES = [
    ("billing", ["invoice", "payment", "refund", "ledger", "currency", "tax"]),
    ("accounts", ["user", "session", "token", "password", "profile", "role"]),
    ("shipping", ["parcel", "zone", "carrier", "label", "rate", "tracking"]),
    ("search", ["query", "index", "ranking", "tokenizer", "facet", "snippet"]),
    ("notify", ["email", "webhook", "template", "digest", "channel", "retry"]),
    ("reports", ["export", "chart", "period", "metric", "csv", "schedule"]),
    ("catalog", ["product", "variant", "price", "stock", "category", "image"]),
    ("sync", ["cursor", "batch", "conflict", "snapshot", "delta", "queue"]),
]
VERBS = [
    "load",
    "save",
    "build",
    "parse",
    "validate",
    "compute",
    "render",
    "fetch",
    "apply",
    "merge",
    "resolve",
    "normalize",
    "schedule",
    "collect",
    "format",
    "refresh",
    "split",
    "match",
]
TYPES = ["str", "int", "bool", "float", "dict[str, Any]", "list[str]", "Decimal", "datetime", "None"]
ATTRS = ["id", "amount", "status", "created_at", "owner_id", "total", "items", "name", "kind", "version"]

PROBLEMS_EN = [
    "returns None when the {noun} list is empty",
    "crashes with a KeyError on {noun}s created before the migration",
    "double-counts the {noun} when the request is retried",
    "is off by one hour around the DST switch",
    "ignores the {noun} filter when paginating",
    "times out on accounts with more than 10k {noun}s",
    "writes the wrong {noun} id into the audit log",
    "rounds the {noun} total the wrong way for BRL",
]
PROBLEMS_PT = [
    "devolve None quando a lista de {noun} vem vazia",
    "quebra com KeyError em {noun} criado antes da migração",
    "conta o {noun} duas vezes quando a requisição é refeita",
    "erra uma hora na virada do horário de verão",
    "ignora o filtro de {noun} na paginação",
    "estoura o timeout em contas com mais de 10 mil {noun}",
    "grava o id errado de {noun} no log de auditoria",
    "arredonda o total de {noun} pro lado errado em BRL",
]
ASK_EN = [
    "{fn} in {path} {problem}. can you fix it?",
    "bug: `{fn}` ({path}) {problem}. pls fix + add a test",
    "looks like {fn} {problem}; it lives in {path}. take a look?",
    "can you add a `{flag}` option to {fn} in {path}? default off",
    "refactor {fn} in {path}, it's grown to 150 lines. keep behaviour identical",
    "where do we {verb} the {noun} before it hits the db? trying to understand the flow",
    "write tests for {fn} in {path}, coverage there is basically zero",
]
ASK_PT = [
    "o {fn} em {path} {problem}. consegue corrigir?",
    "bug: `{fn}` ({path}) {problem}. corrige e põe um teste",
    "parece que o {fn} {problem}; fica em {path}. dá uma olhada?",
    "adiciona uma opção `{flag}` no {fn} em {path}? desligada por padrão",
    "refatora o {fn} em {path}, virou uma função de 150 linhas. comportamento tem que ficar igual",
    "onde a gente faz o {verb} do {noun} antes de gravar no banco? tô tentando entender o fluxo",
    "escreve testes pro {fn} em {path}, a cobertura ali tá praticamente zero",
]
THINK_EN = [
    (
        "The user wants me to look at {fn}. Let me read {path} first and find where the {noun} handling "
        "happens, then reproduce the issue with a focused test before changing anything."
    ),
    (
        "I should check how {fn} is called from the API layer; the bug might be in the caller. Reading the "
        "module and grepping for call sites."
    ),
    "Tests for this module live under tests/{mod}/. I'll run only those to keep the loop fast.",
]
THINK_PT = [
    (
        "O usuário quer que eu olhe o {fn}. Vou ler {path} primeiro, achar onde o {noun} é tratado e "
        "reproduzir com um teste focado antes de mexer."
    ),
    (
        "Preciso ver como o {fn} é chamado pela camada da API; o bug pode estar no chamador. Vou ler o módulo "
        "e procurar os pontos de chamada."
    ),
    "Os testes desse módulo ficam em tests/{mod}/. Vou rodar só eles pra manter o ciclo rápido.",
]
LOOK_EN = ["Let me read the module first.", "I'll start by reading {path}.", "Reproducing first."]
LOOK_PT = ["Vou ler o módulo primeiro.", "Começando por {path}.", "Reproduzindo primeiro."]
FOUND_EN = [
    (
        "Found it: `{fn}` reads `{attr}` before the guard that handles missing {noun}s. Moving the guard up "
        "and adding a regression test."
    ),
    (
        "The loop mutates the list it iterates over, so every second {noun} is skipped. Rewriting it as a "
        "comprehension and covering the case in a test."
    ),
]
FOUND_PT = [
    (
        "Achei: o `{fn}` lê `{attr}` antes da verificação que trata {noun} ausente. Vou subir a verificação "
        "e adicionar um teste de regressão."
    ),
    (
        "O laço altera a lista enquanto percorre, então um {noun} sim e outro não é pulado. Vou reescrever "
        "com compreensão de lista e cobrir o caso num teste."
    ),
]
DONE_EN = [
    "Fixed: `{fn}` now handles the {noun} case. `pytest -q tests/{mod}`: {n} passed in {t}s.",
    "Done. {n} passed ({k} new tests), ruff clean.",
    "All green: {n} passed in {t}s, including the new regression test for {fn}.",
]
DONE_PT = [
    "Corrigido: o `{fn}` agora trata o caso do {noun}. `pytest -q tests/{mod}`: {n} passed em {t}s.",
    "Feito. {n} testes passando ({k} novos), ruff sem erros.",
    "Tudo verde: {n} passed em {t}s, incluindo o teste de regressão novo do {fn}.",
]
DONE2_EN = [
    "I left the public signature unchanged, so callers don't need updates.",
    "Nothing else in the module depended on the old behaviour; I grepped for call sites.",
]
DONE2_PT = [
    "Mantive a assinatura pública, então quem chama não precisa mudar nada.",
    "Nada mais no módulo dependia do comportamento antigo; procurei os pontos de chamada.",
]
FAIL_EN = [
    (
        "Still {k} failing in tests/{mod}: the fixtures assume the old {noun} format. I haven't got it green "
        "yet; want me to update the fixtures or keep the old format?"
    )
]
FAIL_PT = [
    (
        "Ainda tem {k} falhando em tests/{mod}: os fixtures esperam o formato antigo de {noun}. Ainda não tá "
        "verde; atualizo os fixtures ou mantenho o formato antigo?"
    )
]
EXPLAIN_EN = [
    (
        "The {noun} goes through `{fn}` in {path} first, then `{fn2}` persists it inside the same "
        "transaction; validation happens in the serializer, not the model."
    )
]
EXPLAIN_PT = [
    (
        "O {noun} passa primeiro pelo `{fn}` em {path}, depois o `{fn2}` grava na mesma transação; a "
        "validação acontece no serializer, não no model."
    )
]
ACK_EN = ["thanks", "ok, nice", "👍", "cool", "great, next one", "ok"]
ACK_PT = ["valeu", "show", "👍", "beleza", "boa, próximo", "ok"]

MOMENTS = {
    "decision": {
        "en": [
            "let's go with {a} instead of {b} for the {mod} jobs, because {why}.",
            "decision on the {mod} cache: we use {a} rather than {b}, since {why}.",
        ],
        "pt": [
            "vamos de {a} em vez de {b} nos jobs de {mod}, porque {why}.",
            "decisão sobre o cache de {mod}: ficamos com {a} e não {b}, já que {why}.",
        ],
        "choices": [
            (
                "SQLite",
                "Redis",
                {
                    "en": "it's a single-node worker and nobody wants to run another daemon",
                    "pt": "é um worker de um nó só e ninguém quer manter mais um daemon",
                },
            ),
            (
                "Postgres advisory locks",
                "ZooKeeper locks",
                {
                    "en": "we already run Postgres and the lock only needs to survive one transaction",
                    "pt": "já temos Postgres e o lock só precisa durar uma transação",
                },
            ),
            (
                "SQS",
                "RabbitMQ",
                {
                    "en": "we're all-in on AWS and nobody wants to operate a broker",
                    "pt": "estamos 100% na AWS e ninguém quer operar broker",
                },
            ),
        ],
    },
    "correction": {
        "en": [
            (
                "no, don't run the whole suite after each edit, it takes five minutes. only the test module you "
                "touched; I run the full thing before pushing."
            ),
            "please stop adding a comment on every line. comments are for the why, not the what.",
        ],
        "pt": [
            (
                "não, não roda a suíte inteira a cada edição, demora cinco minutos. só o módulo de teste que vc "
                "mexeu; a completa eu rodo antes do push."
            ),
            "para de colocar comentário em toda linha, por favor. comentário é pro porquê, não pro quê.",
        ],
    },
    "milestone": {
        "en": [
            "fyi v{ver} is out: published to PyPI this morning and the changelog is live.",
            "heads up, {ver} got deployed to production an hour ago, dashboards look clean.",
        ],
        "pt": [
            "só avisando: a v{ver} saiu, publicamos no PyPI hoje de manhã.",
            "a {ver} subiu pra produção faz uma hora, os painéis estão limpos.",
        ],
    },
}
MOMENT_REPLY = {
    "decision": {
        "en": "Makes sense. I'll wire {a} in and keep the interface small so swapping later stays cheap.",
        "pt": "Faz sentido. Vou usar {a} e manter a interface pequena pra trocar depois sair barato.",
    },
    "correction": {
        "en": "Understood, I'll adjust how I work from here.",
        "pt": "Entendido, vou ajustar daqui pra frente.",
    },
    "milestone": {
        "en": "Congrats on {ver}! Anything from the release you want me to follow up on?",
        "pt": "Parabéns pela {ver}! Quer que eu acompanhe alguma pendência da release?",
    },
}


# --------------------------------------------------------------------------- content generators


def _py_source(rng: random.Random, mod: str, nouns: list[str], n_lines: int) -> list[str]:
    lines = [
        f'"""{mod.capitalize()} {rng.choice(nouns)} helpers."""',
        "",
        "from __future__ import annotations",
        "",
        "import logging",
        "from dataclasses import dataclass, field",
        "from datetime import datetime",
        "from decimal import Decimal",
        "from typing import Any",
        "",
        "logger = logging.getLogger(__name__)",
        "",
    ]
    while len(lines) < n_lines:
        noun, verb = rng.choice(nouns), rng.choice(VERBS)
        if rng.random() < 0.2:
            lines += [
                "",
                "@dataclass",
                f"class {noun.capitalize()}{rng.choice(['Record', 'Spec', 'Row', 'Event'])}:",
            ]
            for a in rng.sample(ATTRS, 4):
                lines.append(f"    {a}: {rng.choice(TYPES)}")
            lines.append("    tags: list[str] = field(default_factory=list)")
            continue
        args = ", ".join(f"{a}: {rng.choice(TYPES)}" for a in rng.sample(ATTRS, rng.randrange(1, 4)))
        lines += [
            "",
            "",
            f"def {verb}_{noun}({args}) -> {rng.choice(TYPES)}:",
            f'    """{verb.capitalize()} the {noun} and return the result."""',
        ]
        for _ in range(rng.randrange(3, 12)):
            a, b = rng.sample(ATTRS, 2)
            lines.append(
                rng.choice(
                    [
                        f"    if {a} is None:\n        return None",
                        f"    for item in {a}:\n        total += item.{b}",
                        f'    logger.debug("{verb} {noun} %s", {a})',
                        f"    result = _{rng.choice(VERBS)}_{noun}({a}, timeout={rng.randrange(1, 60)})",
                        f"    {b} = {{k: v for k, v in {a}.items() if v is not None}}",
                        f'    if not {a}:\n        raise ValueError("empty {noun}")',
                        f'    {a} = Decimal({b}).quantize(Decimal("0.01"))',
                    ]
                )
            )
        lines.append("    return result")
    return "\n".join(lines).split("\n")[:n_lines]


def _numbered(lines: list[str]) -> str:
    return "\n".join(f"{i:>6}→{line}" for i, line in enumerate(lines, 1))


def _pytest_output(rng: random.Random, cwd: str, mod: str, nouns: list[str], n: int, failures: int) -> str:
    out = [
        "============================= test session starts ==============================",
        "platform linux -- Python 3.12.3, pytest-8.3.4, pluggy-1.5.0 -- /usr/bin/python3",
        f"rootdir: {cwd}",
        "configfile: pyproject.toml",
        "plugins: xdist-3.6.1, cov-5.0.0",
        f"collected {n} items",
        "",
    ]
    failed = set(rng.sample(range(n), failures)) if failures else set()
    names = []
    verbose = rng.random() < 0.5
    dots = ""
    for i in range(n):
        name = f"tests/{mod}/test_{rng.choice(nouns)}.py::test_{rng.choice(VERBS)}_{rng.choice(nouns)}_{i}"
        names.append(name)
        if verbose:
            status = "FAILED" if i in failed else "PASSED"
            out.append(f"{name} {status}".ljust(74) + f"[{(i + 1) * 100 // n:>3}%]")
        else:
            dots += "F" if i in failed else "."
            if len(dots) == 40 or i == n - 1:
                out.append(
                    f"tests/{mod}/test_{rng.choice(nouns)}.py {dots}".ljust(74)
                    + f"[{(i + 1) * 100 // n:>3}%]"
                )
                dots = ""
    if failed:
        out += ["", "=================================== FAILURES ==================================="]
        for i in sorted(failed):
            out += [
                f"_____ {names[i].split('::')[1]} _____",
                "",
                f"    def {names[i].split('::')[1]}():",
                f">       assert result.{rng.choice(ATTRS)} == expected",
                (f"E       AssertionError: assert '{rng.choice(nouns)}-v1' == '{rng.choice(nouns)}-v2'"),
                "",
            ]
        out.append("=========================== short test summary info ============================")
        out += [f"FAILED {names[i]} - AssertionError" for i in sorted(failed)]
        out.append(
            f"========================= {len(failed)} failed, {n - len(failed)} passed in "
            f"{rng.uniform(0.5, 9):.2f}s ========================="
        )
    else:
        out.append(
            f"============================== {n} passed in {rng.uniform(0.5, 9):.2f}s "
            "=============================="
        )
    return "\n".join(out)


def _grep_output(rng: random.Random, mod: str, fn: str, nouns: list[str]) -> str:
    hits = []
    for _ in range(rng.randrange(4, 30)):
        hits.append(
            f"{mod}/{rng.choice(nouns)}.py:{rng.randrange(5, 400)}:    "
            f"{rng.choice(['result = ', 'return ', 'await ', ''])}{fn}({rng.choice(ATTRS)})"
        )
    return "\n".join(hits)


def _git_diff(rng: random.Random, path: str, lines: list[str]) -> str:
    start = rng.randrange(1, max(2, len(lines) - 20))
    chunk = lines[start : start + rng.randrange(6, 20)]
    out = [
        f"diff --git a/{path} b/{path}",
        f"index {rng.getrandbits(28):07x}..{rng.getrandbits(28):07x} 100644",
        f"--- a/{path}",
        f"+++ b/{path}",
        f"@@ -{start},{len(chunk)} +{start},{len(chunk) + 2} @@",
    ]
    for j, line in enumerate(chunk):
        out.append(("-" if j % 5 == 2 else " ") + line)
        if j % 5 == 2:
            out.append("+" + line.replace("None", "default").replace("raise", "return"))
    return "\n".join(out)


# --------------------------------------------------------------------------- turns


class _Gen:
    def __init__(self, s: Session, rng: random.Random, lang: str) -> None:
        self.s, self.rng, self.lang = s, rng, lang
        self.turns = 0
        self.moments: list[dict] = []
        self.edited: dict[str, int] = {}

    def _lang(self) -> str:
        return self.rng.choice(["en", "pt"]) if self.lang == "mix" else self.lang

    def _ctx(self) -> dict:
        rng = self.rng
        mod, nouns = rng.choice(MODULES)
        noun = rng.choice(nouns)
        fn = f"{rng.choice(VERBS)}_{noun}"
        return {
            "mod": mod,
            "nouns": nouns,
            "noun": noun,
            "fn": fn,
            "fn2": f"{rng.choice(VERBS)}_{noun}",
            "path": f"{mod}/{noun}.py",
            "attr": rng.choice(ATTRS),
            "verb": rng.choice(VERBS),
            "flag": f"--{rng.choice(['strict', 'dry-run', 'since', 'limit', 'no-cache'])}",
        }

    @staticmethod
    def _fmt(template: str, ctx: dict) -> str:
        return template.format(**ctx)

    def _read(self, ctx: dict, budget: int) -> tuple:
        path = f"{self.s.cwd}/{ctx['path']}"
        n_lines = max(8, min(self.rng.randrange(60, 420), budget // 90))
        src = _py_source(self.rng, ctx["mod"], ctx["nouns"], n_lines)
        raw = "\n".join(src) + "\n"
        ctx["_src"] = src
        tur = {
            "type": "text",
            "file": {
                "filePath": path,
                "content": raw,
                "numLines": len(src) + 1,
                "startLine": 1,
                "totalLines": len(src) + 1,
            },
        }
        return ("tool", "Read", {"file_path": path}), (_numbered(src + [""]), tur, None)

    def _edit(self, ctx: dict) -> tuple:
        path = f"{self.s.cwd}/{ctx['path']}"
        src = ctx.get("_src") or ["    return None"]
        candidates = [j for j, line in enumerate(src) if line.startswith("    ") and line.strip()] or [0]
        i = self.rng.choice(candidates)
        old = src[i]
        new = old.replace("None", "default") if "None" in old else old.replace("    ", "    # ", 1)
        tur = {
            "filePath": path,
            "oldString": old,
            "newString": new,
            "originalFile": "\n".join(src),
            "structuredPatch": [
                {
                    "oldStart": i + 1,
                    "oldLines": 1,
                    "newStart": i + 1,
                    "newLines": 1,
                    "lines": ["-" + old, "+" + new],
                }
            ],
            "userModified": False,
            "replaceAll": False,
        }
        self.edited[ctx["path"]] = self.edited.get(ctx["path"], 0) + 1
        return (
            ("tool", "Edit", {"file_path": path, "old_string": old, "new_string": new, "replace_all": False}),
            (f"The file {path} has been updated successfully.", tur, None),
        )

    def _bash(self, command: str, description: str, stdout: str, ok: bool = True) -> tuple:
        tur = {"stdout": stdout, "stderr": "", "interrupted": False, "isImage": False}
        return (
            ("tool", "Bash", {"command": command, "description": description}),
            (stdout if ok else f"Exit code 1\n{stdout}", tur, not ok),
        )

    def _pytest(self, ctx: dict, failures: int, budget: int) -> tuple:
        n = max(3, min(self.rng.randrange(12, 110), budget // 160))
        out = _pytest_output(self.rng, self.s.cwd, ctx["mod"], ctx["nouns"], n, min(failures, n))
        ctx["n"], ctx["t"], ctx["k"] = n, f"{self.rng.uniform(0.4, 8):.2f}", self.rng.randrange(1, 4)
        return self._bash(
            f"python -m pytest -v tests/{ctx['mod']}", f"Run the {ctx['mod']} tests", out, ok=failures == 0
        )

    def _msg(self, blocks_results: list) -> None:
        blocks, results = [], {}
        for item in blocks_results:
            if isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], tuple):
                results[len(blocks)] = item[1]
                blocks.append(item[0])
            else:
                blocks.append(item)
        self.s.assistant(blocks, results=results)

    def _closing(self, lang: str, ctx: dict, failing: bool = False) -> None:
        rng = self.rng
        if failing:
            text = self._fmt(rng.choice(FAIL_EN if lang == "en" else FAIL_PT), ctx)
            self._msg([("text", text)])
            return
        blocks = [("text", self._fmt(rng.choice(DONE_EN if lang == "en" else DONE_PT), ctx))]
        if rng.random() < 0.6:  # a second text record with the same message.id
            blocks.append(("text", rng.choice(DONE2_EN if lang == "en" else DONE2_PT)))
        self._msg(blocks)

    def turn(
        self,
        budget: int,
        *,
        kind: str | None = None,
        prompt: str | None = None,
        lang: str | None = None,
        ctx: dict | None = None,
    ) -> None:
        """One user request and everything the assistant does for it."""
        rng, s = self.rng, self.s
        lang = lang or self._lang()
        ctx = ctx or self._ctx()
        if kind is None and budget < 30_000:  # little room left (small files): a cheap text-only turn
            kind = "question"
        kind = (
            kind
            or rng.choices(["fix", "explore", "fix", "feature", "question", "failing"], [4, 2, 3, 2, 1, 1])[0]
        )
        if prompt is None:
            asks = ASK_EN if lang == "en" else ASK_PT
            if kind == "explore":
                tpl = asks[5]
            elif kind == "feature":
                tpl = rng.choice([asks[3], asks[6]])
            else:
                tpl = rng.choice(asks[:3] + [asks[4]])
            ctx["problem"] = self._fmt(rng.choice(PROBLEMS_EN if lang == "en" else PROBLEMS_PT), ctx)
            prompt = self._fmt(tpl, ctx)
        s.prompt(prompt)
        self.turns += 1
        think = THINK_EN if lang == "en" else THINK_PT
        look = LOOK_EN if lang == "en" else LOOK_PT
        per_tool = max(1000, budget // 3)

        if kind == "question":
            self._msg(
                [
                    ("text", "\n\n"),
                    ("thinking", self._fmt(rng.choice(think), ctx)),
                    ("text", self._fmt(rng.choice(EXPLAIN_EN if lang == "en" else EXPLAIN_PT), ctx)),
                ]
            )
        else:
            self._msg(
                [
                    ("text", "\n\n"),
                    ("thinking", self._fmt(rng.choice(think), ctx)),
                    ("text", self._fmt(rng.choice(look), ctx)),
                    self._read(ctx, per_tool),
                ]
            )
            if kind == "explore":
                grep = _grep_output(rng, ctx["mod"], ctx["fn"], ctx["nouns"])
                tur = {
                    "mode": "content",
                    "numFiles": grep.count("\n") + 1,
                    "filenames": [],
                    "content": grep,
                    "numLines": grep.count("\n") + 1,
                }
                grep_call = (
                    "tool",
                    "Grep",
                    {"pattern": ctx["fn"], "path": ctx["mod"], "output_mode": "content", "-n": True},
                )
                self._msg([(grep_call, (grep, tur, None))])
                self._msg([("text", self._fmt(rng.choice(EXPLAIN_EN if lang == "en" else EXPLAIN_PT), ctx))])
            else:
                found = FOUND_EN if lang == "en" else FOUND_PT
                self._msg(
                    [
                        ("thinking", self._fmt(rng.choice(think), ctx)),
                        ("text", self._fmt(rng.choice(found), ctx)),
                        self._edit(ctx),
                    ]
                )
                s.snapshot(s.parent or "", {ctx["path"]: self.edited[ctx["path"]]}, update=True)
                if rng.random() < 0.35:
                    diff = _git_diff(rng, ctx["path"], ctx.get("_src") or ["pass"])
                    self._msg([self._bash(f"git diff {ctx['path']}", "Show the change", diff)])
                if kind == "failing":
                    self._msg([self._pytest(ctx, rng.randrange(1, 4), per_tool)])
                    self._closing(lang, ctx, failing=True)
                else:
                    if rng.random() < 0.3:  # first run fails, fix, re-run
                        self._msg([self._pytest(ctx, rng.randrange(1, 3), per_tool)])
                        self._msg([("text", self._fmt(rng.choice(found), ctx)), self._edit(ctx)])
                    self._msg([self._pytest(ctx, 0, per_tool)])
                    self._closing(lang, ctx)
        s.stop_hook_summary()
        r = rng.random()
        if r < 0.05:
            s.stop_feedback()
            self._msg(
                [
                    (
                        "text",
                        "Nothing left to do for this request."
                        if lang == "en"
                        else "Não ficou nada pendente nesse pedido.",
                    )
                ]
            )
        elif r < 0.10:
            s.local_command(
                rng.choice(["cost", "model", "context"]),
                "",
                rng.choice(["Total cost: $0.42", "Kept model as Default (recommended)", ""]),
            )
        if rng.random() < 0.5:
            s.prompt(rng.choice(ACK_EN if lang == "en" else ACK_PT))
            self._msg(
                [("text", "👍" if rng.random() < 0.3 else ("Anytime." if lang == "en" else "Tranquilo."))]
            )

    def moment(self, kind: str, budget: int) -> None:
        rng = self.rng
        lang = self._lang()
        ctx = self._ctx()
        spec = MOMENTS[kind]
        if kind == "decision":
            a, b, why = rng.choice(spec["choices"])
            ctx.update(a=a, b=b, why=why[lang])
        if kind == "milestone":
            ctx["ver"] = f"{rng.randrange(1, 5)}.{rng.randrange(0, 12)}.{rng.randrange(0, 6)}"
        text = self._fmt(rng.choice(spec[lang]), ctx)
        s = self.s
        s.prompt(text)
        self.moments.append({"kind": kind, "lang": lang, "uuid": s.parent, "text": text})
        self.turns += 1
        reply = self._fmt(MOMENT_REPLY[kind][lang], ctx)
        if kind == "milestone" or budget < 12_000:  # small files: no tool work for the moment
            self._msg([("text", reply)])
            s.stop_hook_summary()
            return
        self._msg(
            [
                (
                    "thinking",
                    "The user gave an instruction I should follow for the rest of the session."
                    if lang == "en"
                    else "O usuário deu uma instrução que devo seguir no resto da sessão.",
                ),
                ("text", reply),
                self._read(ctx, budget // 3),
            ]
        )
        self._msg([self._edit(ctx)])
        self._msg([self._pytest(ctx, 0, budget // 3)])
        self._closing(lang, ctx)
        s.stop_hook_summary()


# --------------------------------------------------------------------------- public API


def _size(lines: list[str]) -> int:
    return sum(len(line.encode("utf-8")) + 1 for line in lines)


def generate(path, mb: float = 2.7, seed: int = 42, lang: str = "mix") -> dict:
    """Write a transcript of about ``mb`` MB (1 MB = 10**6 bytes) to ``path``; return a summary dict."""
    if lang not in ("en", "pt", "mix"):
        raise ValueError("lang must be en, pt or mix")
    t0 = time.perf_counter()
    target = int(mb * MB)
    rng = random.Random(seed)
    s = Session(
        rng,
        cwd=f"/home/dev/projects/{rng.choice(['atlas', 'ledger', 'harbor', 'orbit'])}",
        start=BASE_TIME + dt.timedelta(minutes=rng.randrange(0, 600)),
    )
    g = _Gen(s, rng, lang)
    s.queue_operation()
    rec = s._base("progress")
    rec.update(
        {
            "data": {
                "type": "hook_progress",
                "hookEvent": "SessionStart",
                "hookName": "SessionStart:startup",
                "command": "~/.claude/hooks/session-start.sh",
            },
            "parentToolUseID": s.new_uuid(),
            "timestamp": s.tick(),
            "uuid": s.new_uuid(),
        }
    )
    rec["toolUseID"] = rec["parentToolUseID"]
    s._push(rec)

    kinds = ["decision", "correction", "milestone"]
    rng.shuffle(kinds)
    marks = list(zip([0.22, 0.50, 0.78], kinds))
    size, flushed = 0, 0
    reserve = min(40_000, max(6_000, target // 4))
    while True:
        size += _size(s.lines(flushed))
        flushed = len(s.records)
        if size >= target - reserve:
            break
        room = target - reserve - size
        if marks and (size >= marks[0][0] * target or room < 4_000 * len(marks)):
            g.moment(marks.pop(0)[1], max(1500, (target - reserve - size) // 2))
            continue
        g.turn(min(60_000, max(1500, (target - reserve - size) // 2)))
    for _, kind in marks:  # small targets: make sure every moment exists
        g.moment(kind, 1500)
    size += _size(s.lines(flushed))
    flushed = len(s.records)

    # closing turn whose file read is padded so the file lands on the target size
    lang_last = g._lang()
    ctx = g._ctx()
    s.prompt(("one last look: show me " if lang_last == "en" else "última coisa: me mostra ") + ctx["path"])
    g.turns += 1
    read_block, (content, tur, _) = g._read(ctx, 900)
    start = len(s.records)
    s.assistant([read_block], results={0: (content, tur, None)})
    g._msg([("text", ("That's the whole module." if lang_last == "en" else "Esse é o módulo inteiro."))])
    s.stop_hook_summary()
    tail = s.records[start:]
    result_rec = next(r for r in tail if r.get("toolUseResult") is tur)
    current = size + _size(s.lines(flushed))
    if target > current:
        _pad_read(s, ctx, tur, result_rec, tail, target - current, rng)
    lines = s.lines()
    data = "\n".join(lines) + "\n"
    Path(path).write_text(data, encoding="utf-8")
    return {
        "path": str(path),
        "bytes": len(data.encode("utf-8")),
        "target": target,
        "records": len(lines),
        "turns": g.turns,
        "moments": g.moments,
        "session_id": s.session_id,
        "seed": seed,
        "lang": lang,
        "seconds": round(time.perf_counter() - t0, 3),
    }


def _pad_read(
    s: Session, ctx: dict, tur: dict, result_rec: dict, tail: list[dict], pad: int, rng: random.Random
) -> None:
    """Grow the last file read (stored twice: tool_result + toolUseResult) by ``pad`` bytes."""

    def rec_size() -> int:
        return len(_dumps(result_rec).encode("utf-8"))

    def apply(src: list[str]) -> None:
        result_rec["message"]["content"][0]["content"] = _numbered(src + [""])
        tur["file"].update(content="\n".join(src) + "\n", numLines=len(src) + 1, totalLines=len(src) + 1)

    src = list(ctx["_src"])
    base = rec_size()

    def filler() -> str:  # fixed-width ASCII comment line
        words = " ".join(rng.choice(ctx["nouns"] + VERBS + ATTRS) for _ in range(14))
        return ("# " + words + " " * 80)[:72]

    apply(src + [filler()])
    cost = rec_size() - base  # every filler line costs the same (fixed width, line numbers < 10**6)
    k = max(0, pad // cost) if cost > 0 else 0
    src += [filler() for _ in range(k)]
    apply(src)
    rest = pad - (rec_size() - base)
    if rest >= 2 and k:
        src[-1] = src[-1] + "x" * (rest // 2)
        apply(src)
        rest = pad - (rec_size() - base)
    if rest > 0:  # odd byte(s): pad the closing text record
        last_text = next(r for r in reversed(tail) if r.get("type") == "assistant")
        last_text["message"]["content"][0]["text"] += " " * rest


def _last_record(path: Path) -> dict:
    with open(path, "rb") as fh:
        fh.seek(0, 2)
        end = fh.tell()
        fh.seek(max(0, end - 2_000_000))
        chunk = fh.read().decode("utf-8", errors="replace")
    for line in reversed(chunk.splitlines()):
        try:
            rec = json.loads(line)
        except ValueError:
            continue
        if isinstance(rec, dict) and rec.get("uuid") and rec.get("sessionId") and rec.get("timestamp"):
            return rec
    raise ValueError(f"{path}: no conversation record to continue from")


def append_turns(path, turns: int = 3, seed: int = 42, lang: str = "mix") -> dict:
    """Append ``turns`` turns to an existing transcript, continuing its session and chain."""
    if lang not in ("en", "pt", "mix"):
        raise ValueError("lang must be en, pt or mix")
    path = Path(path)
    last = _last_record(path)
    size0 = path.stat().st_size
    rng = random.Random(f"{seed}:{turns}:{size0}")
    ts = dt.datetime.fromisoformat(last["timestamp"])
    s = Session(
        rng,
        session_id=last["sessionId"],
        cwd=last.get("cwd", "/home/dev/projects/app"),
        version=last.get("version", VERSION),
        branch=last.get("gitBranch", "main"),
        slug=last.get("slug", ""),
        start=ts + dt.timedelta(minutes=2),
        parent=last["uuid"],
    )
    g = _Gen(s, rng, lang)
    for i in range(turns):
        g.turn(30_000, kind="fix" if i == turns - 1 else None)
    lines = s.lines()
    data = "\n".join(lines) + "\n"
    with open(path, "rb+") as fh:  # make sure the previous content ends with a newline
        fh.seek(0, 2)
        if fh.tell():
            fh.seek(-1, 2)
            if fh.read(1) != b"\n":
                data = "\n" + data
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(data)
    return {
        "path": str(path),
        "bytes_added": len(data.encode("utf-8")),
        "records": len(lines),
        "turns": g.turns,
        "session_id": s.session_id,
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description="Generate a realistic Claude Code JSONL transcript.")
    p.add_argument("out", type=Path, help="output .jsonl file")
    p.add_argument("--mb", type=float, default=2.7, help="target size in MB (10**6 bytes), default 2.7")
    p.add_argument("--seed", type=int, default=42)
    p.add_argument("--lang", choices=["en", "pt", "mix"], default="mix")
    p.add_argument(
        "--append-turns",
        type=int,
        metavar="K",
        help="append K turns to the existing OUT instead of writing a new file",
    )
    a = p.parse_args(argv)
    if a.append_turns is not None:
        if a.append_turns < 1:
            p.error("--append-turns must be >= 1")
        if not a.out.is_file():
            p.error(f"{a.out} does not exist")
        info = append_turns(a.out, a.append_turns, a.seed, a.lang)
    else:
        if a.mb <= 0:
            p.error("--mb must be > 0")
        info = generate(a.out, a.mb, a.seed, a.lang)
        info.pop("moments")
    print(json.dumps(info), file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
