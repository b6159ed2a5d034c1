"""The Stop hook's policy: when the session should consolidate (``stop``).

Measurements: docs/decisions/050-hooks-stop-policy-and-fast-path.md


Contract in detail: docs/decisions/060-module-contracts.md (mdmem/agents/checkpoint/stop.py).
"""

from __future__ import annotations

import os

from mdmem.agents.hooks.state import (
    DEFAULTS,
    LOCK_WAIT,
    HookError,
    log,
    now,
    read_state,
    rearm,
    settings,
    text_field,
    write_state,
)
from mdmem.base import files
from mdmem.base.layout import safe_session
from mdmem.base.lazy_re import Lazy
from mdmem.text.language import choose, tally

TYPE_CHECKING = False  # not `from typing import`: the quiet stop imports as little as it can
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

CARRY = 2          # messages carried from one evidence scan to the next, for context
SEEN = 400         # evidence keys remembered per session, so a message is not counted twice
PENDING = 5        # the strongest pieces of evidence kept per dimension until the next trigger
# turns in a row that may end by asking the user and still defer a due checkpoint: an interview (a
# brainstorming skill asking "Which timing model do you want?" at every turn, the user answering "A.")
# ends every turn with a question, and its answers are the decisions worth keeping; measured on the
# replay of the real sessions, deferring without a bound kept such a session silent through all 12 stops
ASK_DEFER = 2
STEER_WORDS = 5    # a follow-up message of fewer words ("yes", "commit this", "push") does not steer
BANK = 4           # stops a session needs before its first in-session scan (the user asking goes past it)
SAID_BANK = 3      # ... but a turn in which the user stated a rule or corrected the assistant may be the first
BUDGET_STOPS = 10  # stops between two in-session scans: about one firing in ten stops
TOPIC = 80         # words of the recent requests kept, for topic changes and the scan prompt
MEMORY_DIMENSIONS = ("2", "3", "4", "6", "7")  # what fires on its own: rules, decisions, feedback, analysis
_ASK = Lazy(r"\b(?:consolidate|consolidar|consolide|sediment\w*|(?:do|run) (?:a|the) (?:memory )?checkpoint|"
        r"(?:save|remember|store|keep|note) (?:this|that|it|these|what we\b[^.?!]{0,30}?)\b[^.?!]{0,20}?"
        r"\b(?:memory|memories|for later|for next time)|add (?:this|that|it) to (?:your |the )?memory|"
        r"what should (?:we|you) remember|(?:review|summari[sz]e|recap|wrap up) (?:this|the|our) (?:session|"
        r"conversation|chat|work so far)|(?:revise|resuma|revisa|recapitule) (?:a|essa|esta|nossa) (?:sessão|conversa)|"
        r"salv[ae] (?:isso|isto) na memória|guard[ae] (?:isso|isto) na memória)\b", "IM")
# What any detector of a dimension the user speaks (②③④⑥⑦, ⑤) could hit needs one of these: a stop whose new
# text holds none of them cannot fire (a delivery, tool calls and a topic change add up to 0.75 at most), so
# the detectors (~40 ms of regular expressions to compile) are not even imported. A superset on purpose
# (tests/test_hook_signals.py checks it against every piece of evidence in the labelled corpora), and checked
# with set and substring lookups, not a regular expression: compiling one this size costs more than a quiet
# stop's whole budget (measured: 20-40 ms).
_GATE_WORDS = frozenset("""
always never jamais sempre nunca future whenever rule rules regra regras general geral everything only over lose
vale qualquer yes yep yeah ok okay sure agreed agree sim isso fechado bora pode concordo beleza show combinado
vamos ficamos fechamos fomos but mas no nope nah não nao stop quit wait espera segura hold drop skip ditch scrap
remove forget because since porque pois devido reason motivo argument overkill yagni keep perfect exactly precisely
love useful helpful great excellent awesome brilliant sensacional adorei gostei ótimo otimo excelente perfeito
exatamente trust believe instead rather style estilo format padrão decision decisão merged released deployed shipped
published launched tagged production subiu subimos liberamos entregamos useful again novamente
intentional deliberate intended proposital intencional remember lembre lembra esqueça esqueca wherever avoid
""".split())
_GATE_STEMS = (
    "prefer", "perfer", "prefiro", "preferên", "decid", "decis", "chose", "chosen", "escolh", "switch", "standardi",
    "conflit", "conflict", "disagree", "differ", "divergi", "discord", "convention", "convenç", "continu", "mantenh",
    "mantém", "mante", "deploy", "publicad", "publicamos", "publish", "lançad", "lançamos", "lançou", "launch",
    "mergead", "mergeamos", "larg", "complex", "trade", "follow", "seguem", "consistent", "everywhere", "throughout",
    "forbid", "proibid", "release", "abandon", "substitu", "migr", "troc", "opt", "sense", "sentido", "compromis",
    "verbos", "wordy", "esquec", "tira", "remov", "salva", "guarda", "acert", "pick", "settl", "ditch", "replac",
    "dropp", "adopt", "adot", "usamos", "picks", "rolled", "available", "deprecat", "phased", "sunset", "supersed",
    "descontinuad", "depreciad", "obsolet", "deliberat", "explicit", "intention", "purpos")
_GATE_PHRASES = (
    "at all times", "from now on", "going forward", "moving forward", "from here on", "every time", "everytime",
    "each time", "in every", "in all", "want you", "off the table", "make sure", "you should", "we should",
    "você deve", "devemos", "deveríamos", "just want", "só quero", "so quero", "quero só", "quero so", "other than",
    "além d", "fora d", "em vez", "ao invés", "no lugar", "went with", "go with", "going with", "moved to",
    "the choice", "the call", "in favo", "as opposed", "custo-benefício", "prós e contras", "pros and cons", "so no",
    "então sem", "entao sem", "não precisa", "nao precisa", "not worth", "keep it simple", "não vale", "i think",
    "acho que", "no need", "not yet", "please don", "please do", "please avoid", "please stop", "don't", "dont",
    "do not", "do nit", "told you", "asked you", "not what i", "not like that", "i'd rather", "i'd prefer",
    "id rather", "too verbose", "too long", "too wordy", "too many", "para de", "pare de", "eu falei", "eu disse",
    "eu pedi", "assim não", "muito verboso", "muito longo", "part of it", "half of it", "not quite", "só parte",
    "só metade", "the way i", "how i like", "how i want", "more of this", "like this", "like that", "spot on",
    "nailed it", "é assim", "assim que eu", "this is", "let's", "lets ", "let us", "save this", "save that",
    "save it", "i like", "we'll use", "going to use", "muito bom", "muito útil", "show de bola", ", not", "; not",
    ", no ", ",no ", "; no ", ", sem ", "; sem ", "nada de", "so that", "as it", "given that", "due to",
    "which means", "já que", "por causa", "uma vez que", "assim a gente", "a partir de agora", "daqui pra frente",
    "daqui para frente", "de agora em diante", "daqui em diante", "toda vez", "nas próximas", "como regra",
    "went live", "went out", "is live", "now live", "been live", "is out", "are out", "pro ar", "para o ar",
    "no ar", "em produção", "play store", "app store", "sounds good", "go ahead", "not allowed", "vamos de",
    "e não", "em detrimento", "passa a usar", "fica n", "fica c", "continua n", "vai pr", "we use", "will use",
    "gets a", "goes to", "go to", "go on", "stays", "moves to", "in future", "hold off", "hold on", "cut a release",
    "cut the release", "de novo", "outra vez", "same error", "same issue", "same problem", "came back",
    "on purpose", "by design", "de propósito", "no longer", "claude should", "claude must", "agent should",
    "assistant should", "claude deve", "agente deve", "is there no", "isn't there", "don't we", "why not",
    "shouldn't we", "shouldn't you", "can't we", "não tem", "não existe", "por que não", "don’t", "be sure",
    "sure to", " is our ", " is my ", " are our ", "i mean", "é nosso", "é o nosso", "é nossa", "é meu", "é minha",
    "where possible", "where we can", "where you can", "where it makes sense", "where feasible", "onde poss",
    "onde der", "onde puder", "s should ", "s must ", "s need ", "s needs ", "ought to", "we avoid", "we stick",
    "we rely", "we only", "we generally", "we usually", "we always", "we do not")
_GATE_PAIRS = (frozenset("go goes belong belongs live lives stay stays sit sits ficam fica vão vai".split()),
               frozenset("not never rather não nunca".split()))
_GATE_ASSISTANT_WORDS = frozenset("merged released deployed shipped published launched tagged production subiu "
                                  "subimos liberamos entregamos decision decisão".split())
_GATE_ASSISTANT_STEMS = ("decid", "decis", "chose", "chosen", "pick", "settl", "switch", "standardi", "dropp",
                         "replac", "ditch", "escolh", "migr", "troc", "larg", "abandon", "substitu", "deploy",
                         "publicad", "publish", "lançad", "lançamos", "lançou", "launch", "release", "mergead",
                         "rolled", "available", "opt")
_GATE_ASSISTANT_PHRASES = ("went with", "going with", "go with", "moved to", "moving off", "the choice", "the call",
                           "ficamos", "fechamos", "vamos", "fomos de", "went live", "went out", "is live",
                           "now live", "been live", "is out", "are out", "pro ar", "para o ar", "no ar",
                           "em produção", "play store", "app store", "cut a release", "cut the release",
                           # a failure said to be back (agents/rules.lessons)
                           "failed again", "fails again", "failing again", "broke again", "broken again",
                           "crashed again", "errored again", "again failed", "again fails", "again broke",
                           "same error", "same issue", "same problem", "same failure", "came back", "de novo",
                           "outra vez", "novamente", "mesmo erro", "mesmo problema",
                           # the assistant concedes a correction (agents/corrections)
                           "you're right", "you’re right", "you are right", "you're absolutely", "you’re absolutely",
                           "you're correct", "you are correct", "good catch", "great catch", "good point",
                           "great point", "fair point", "fair enough", "good call", "my mistake", "my bad",
                           "i was wrong", "i stand corrected", "i missed", "i overlooked", "i misread", "tem razão",
                           "bem observado", "boa observação", "erro meu", "foi mal", "me enganei", "você está certo")
_PUNCT = str.maketrans({c: " " for c in ".,;:!?()[]{}\"'`*_#>|/\\<=+~^$%&@\n\t\r…—–-"})
_ASK_HINTS = ("consolid", "sediment", "checkpoint", "memory", "memories", "memória", "remember", "review",
              "summari", "recap", "wrap up", "resuma", "revise", "revisa", "recapitule", "for later", "next time")


def _words(low: str) -> list[str]:
    return low.translate(_PUNCT).split()


_OPTION_HEADS = frozenset(f"{x}{p}" for x in "ABCDEFGH123456789" for p in ".):*")


def offers(text: str) -> bool:
    """The message (its last 2,000 characters) lists two or more labelled options ("A.", "1)",
    "| **B.") and asks something: the user's next message may pick one (④, whatever its words)."""
    tail = text[-2000:]
    if "?" not in tail and ":\n" not in tail:
        return False
    heads = sum(1 for ln in tail.split("\n") if ln.lstrip(" -*•|#").lstrip("*").replace("Option ", "")[:2]
                in _OPTION_HEADS)
    return heads >= 2


def gate(users: list, new: list, before: Sequence = ()) -> bool:
    """Whether the new text could hold evidence that fires: a user message with a word some
    detector needs, an answer to an assistant message (``before``: the messages carried from
    the last stop, or ``new``) that offered options, or an assistant message with a decision
    phrase (④ needs one, or the user's approval) or a release (⑤). Sets and substrings only
    (see :data:`_GATE_WORDS`)."""
    if users and any(m.speaker == "assistant" and m.text and offers(m.text) for m in (*before, *new)):
        return True
    for m in users:
        low = m.text.lower()
        words = _words(low)
        if _GATE_WORDS.intersection(words) or any(w.startswith(_GATE_STEMS) for w in words):
            return True
        if any(p in low for p in _GATE_PHRASES):
            return True
        if _GATE_PAIRS[0].intersection(words) and _GATE_PAIRS[1].intersection(words):
            return True
        if words and (len(words[0]) == 1 or words[0] in ("option", "opção") or words[:2] == ["i", "think"]):
            return True  # perhaps a pick among offered options ("A.", "option 2", "I think B": ④)
    for m in new:
        if m.speaker != "assistant" or not m.text:
            continue
        low = m.text.lower()
        words = _words(low)
        if _GATE_ASSISTANT_WORDS.intersection(words) or any(w.startswith(_GATE_ASSISTANT_STEMS) for w in words) \
                or any(p in low for p in _GATE_ASSISTANT_PHRASES):
            return True
    return False


def _asked(users: list) -> bool:
    """The user asks to consolidate (checked with the regular expression only when a hint word is there)."""
    return any(any(h in m.text.lower() for h in _ASK_HINTS) and _ASK.search(m.text) for m in users)





# ----------------------------------------------------------------------------- stop


def stop(vault: str, payload: dict, opts: dict, *, read: Callable) -> dict | None:
    """The Stop hook: a scan prompt when the session should consolidate, else None. ``read`` is the
    agent's transcript reader (path, start=, max_bytes=) -> Transcript."""
    if payload.get("stop_hook_active") is True:
        return None  # Claude is already continuing because of a Stop hook: never loop
    session, transcript = text_field(payload, "session_id"), text_field(payload, "transcript_path")
    if not session:
        raise HookError("no session_id in the hook's input")
    cfg = settings(vault, opts)
    if cfg["timeout_seconds"] != DEFAULTS["timeout_seconds"]:
        rearm(cfg["timeout_seconds"])
    folder = files.state_path(vault, "hooks")
    base = os.path.join(folder, "stop-" + safe_session(session))
    t = now()
    with files.Lock(base + ".lock", LOCK_WAIT, f"another hook holds {base}.lock (waited {LOCK_WAIT:.0f} s)"):
        state = read_state(base + ".json")
        state.setdefault("first", t)
        state["stops"] = state.get("stops", 0) + 1
        state["since"] = state.get("since", 0) + 1
        state["policy"] = cfg["policy"]
        if transcript and state.get("transcript") not in (None, transcript):
            state.update(offset=0, trigger_offset=0, count=0, carry=[])  # a new file for this session
        state["transcript"] = transcript or state.get("transcript")
        cwd = text_field(payload, "cwd")
        if cwd:
            state["cwd"] = cwd
        state["agent"] = text_field(payload, "mdmem_agent") or "claude"  # whose transcript format this is
        why = None
        if cfg["policy"] == "cadence":
            last = state.get("last_trigger") or state["first"]
            if state["since"] >= cfg["min_stops"] and t - last >= cfg["min_minutes"] * 60:
                scan = _scan(transcript, state, "trigger_offset", payload, cfg, read=read)
                _remember(state, scan["found"])
                why = f"{state['since']} stops since the last checkpoint"
        else:
            scan = _scan(transcript, state, "offset", payload, cfg, cfg["policy"] != "signals", t, read=read)
            _remember(state, scan["found"])
            if cfg["policy"] == "evidence":
                if len(state["pending"]) >= cfg["min_dimensions"] and _spaced(state, cfg, t):
                    why = f"{len(state['pending'])} dimensions hit since the last checkpoint"
            else:
                why = _signals(state, scan, cfg, t)
        evidence = [_evidence(d) for items in state.get("pending", {}).values() for d in items]
        if why is not None:
            _trigger(state, t)
            state["why"] = why
        write_state(base + ".json", state)
        if why is None:
            return None
        return _fire(vault, session, transcript, evidence, state, cfg, why)


def _remember(state: dict, found: list) -> None:
    """Keep the strongest evidence of each dimension until the next trigger."""
    pending = state.setdefault("pending", {})
    if not found:
        return  # (and the detectors' module is not imported for nothing)
    from mdmem.agents.checkpoint.candidates import redacted
    from mdmem.agents.checkpoint.dimensions import HIT

    for e in found:
        if e.strength >= HIT:  # only what hits a dimension counts toward firing
            items = pending.setdefault(str(e.dimension), [])
            items.append(_evidence_dict(redacted(e)))  # kept until the next scan: secrets never stored
            items.sort(key=lambda d: -d["strength"])
            del items[PENDING:]


def _signals(state: dict, scan: dict, cfg: dict, t: float) -> str | None:
    """The ``signals`` policy at this stop: why to fire, or None. It fires only at a natural gap, within a
    budget (see the module's docstring): never without user words typed since the last scan
    (:func:`_new_words`), at most once per :data:`BUDGET_STOPS` stops after the first :data:`BANK`
    (:func:`_budget`); the user asking to consolidate goes past the budget."""
    state["tools"] = state.get("tools", 0) + scan["tools"]
    state["steers"] = state.get("steers", 0) + scan["steers"]
    if not _new_words(state):
        return None  # never two scans without new user words between them
    if scan["ask"]:
        return "the user asked to consolidate"
    if scan["asks_user"] is not None:
        state["asked"] = state.get("asked", 0) + 1 if scan["asks_user"] else 0
    if scan["asks_user"] and state["asked"] <= ASK_DEFER:
        return None  # the turn ends by asking the user something: they answer first (an interview: see ASK_DEFER)
    if not _spaced(state, cfg, t):
        return None
    if scan["said"] and _budget(state, SAID_BANK):  # the user stated a rule or corrected the assistant in this turn
        return "the user stated a rule or corrected the assistant"
    if not _budget(state):
        return None
    pending = state.get("pending", {})
    memory = [d["strength"] for k in MEMORY_DIMENSIONS for d in pending.get(k, [])]
    if memory and max(memory) >= 0.8:
        return "a rule, decision or correction was said"  # said in a turn that asked the user (an interview)
    worth = bool(memory) or "5" in pending or bool(state.get("steers"))
    if not worth:
        return None  # a gap with nothing said since the last scan: the session's end review covers the rest
    if scan["delivered"]:
        return "a task was closed"
    if scan["topic_changed"]:
        return "the topic changed"
    since = t - (state.get("last_trigger") or state["first"])
    if state["since"] >= cfg["min_stops"] and since >= cfg["min_minutes"] * 60:
        return f"{state['since']} stops since the last checkpoint"
    return None


def _new_words(state: dict) -> bool:
    """The user typed something since the last scan (``typed`` counts the session's typed messages)."""
    return int(state.get("typed", 0)) > int(state.get("typed_at_scan", 0))


def _budget(state: dict, bank: int | None = None) -> bool:
    """Whether a firing now stays within the budget: the session's ``n``-th firing needs
    ``BANK + (n - 1) * BUDGET_STOPS`` stops (measured on the tune split of the real sessions, the
    firings then stay near 1 in 10 stops; what no in-session scan covered, the next session reviews)."""
    return int(state.get("stops", 0)) >= (BANK if bank is None else bank) + int(state.get("triggers", 0)) * BUDGET_STOPS


def _spaced(state: dict, cfg: dict, t: float) -> bool:
    """At least ``min_interval_minutes`` since the last checkpoint (or none yet)."""
    last = state.get("last_trigger")
    return not last or t - last >= cfg["min_interval_minutes"] * 60


def _trigger(state: dict, t: float) -> None:
    state["last_trigger"] = t
    state["covered"] = int(state.get("offset", 0) or 0)  # the scan covers the transcript up to here
    state["typed_at_scan"] = int(state.get("typed", 0))
    state["since"] = 0
    state["tools"] = 0
    state["steers"] = 0
    state["pending"] = {}
    state["triggers"] = state.get("triggers", 0) + 1


def _evidence_dict(e) -> dict:
    return e._asdict()


def _evidence(d: dict):
    from mdmem.agents.checkpoint.dimensions import Evidence

    return Evidence(**d)


def _scan(transcript: str, state: dict, key: str, payload: dict, cfg: dict, detectors: bool = True,
          t: float = 0.0, *, read: Callable) -> dict:
    """What the transcript bytes after ``state[key]`` hold (the offset then moves to the end
    of what was read): new evidence, tool calls, whether the user asked to consolidate, whether
    the turn delivered a result or ends by asking the user, whether the topic changed.
    ``detectors=False`` (the ``signals`` policy): the detectors run only when this stop could
    fire (see :func:`_worth_detecting`)."""
    from mdmem.agents.checkpoint.transcript import Message

    if not transcript:
        raise HookError("no transcript_path in the hook's input")
    start = int(state.get(key, 0) or 0)
    # the messages carried from the last scan are read again from the transcript (the state keeps their offsets,
    # never their text): a message whose first records the last scan read comes back whole
    meta = [c for c in state.get("carry", []) if isinstance(c, dict)] if key == "offset" else []
    begin = min([start, *(int(c.get("offset", start)) for c in meta)])
    tr = read(transcript, start=begin, max_bytes=int(float(cfg["max_transcript_mb"]) * 1024 * 1024))
    base = int(state.get("count", 0)) if key == "offset" else 0
    old = [m for m in tr.messages if m.offset < start]
    known = {int(c.get("offset", -1)): int(c.get("index", 0)) for c in meta}
    carry = [Message(known.get(m.offset, base - len(old) + i), m.speaker, m.text, m.tools, m.offset, m.id, m.kind)
             for i, m in enumerate(old)][-CARRY:]
    fresh = [Message(base + i, m.speaker, m.text, m.tools, m.offset, m.id, m.kind)
             for i, m in enumerate(m for m in tr.messages if m.offset >= start)]
    messages = carry + fresh
    last = payload.get("last_assistant_message")
    if isinstance(last, str) and last.strip() and not any(
            m.speaker == "assistant" and last.strip()[:200] in m.text for m in messages[-3:]):
        # the transcript is written asynchronously: the last reply may not be in the file yet
        messages.append(Message(base + len(fresh), "assistant", last.strip(), (), tr.end))
    state[key] = tr.end
    new = [m for m in messages if m.index >= base]
    users = [m for m in new if m.speaker == "user"]
    final = next((m.text for m in reversed(messages) if m.speaker == "assistant" and m.text and m.kind != "prompt"),
                 "")
    ask = _asked(users)
    steers = _steers(state, users)
    steering = steers and _spaced(state, cfg, t)  # it could fire
    found = []
    asks = None  # not looked at (the detectors did not run: this stop cannot fire)
    if detectors or ask or steering or _worth_detecting(state, users, new, cfg, t, carry):
        from hashlib import blake2b

        from mdmem.agents.checkpoint.dimensions import asks_user, detect

        seen = set(state.get("seen", []))
        for e in detect(messages):
            k = blake2b(f"{e.dimension}:{e.quote}".encode(), digest_size=8).hexdigest()  # a hash, not the quote
            if k not in seen:
                seen.add(k)
                found.append(e)
        state["seen"] = list(seen)[-SEEN:]
        asks = bool(final) and asks_user(final)
        state["detected"] = state.get("detected", 0) + 1
    pt, en = tally(" ".join(m.text for m in users if m.kind != "prompt")[:20000])
    if pt or en:  # the language the user writes in, over the whole session: the prompt's and the message's
        old_pt, old_en = state.get("lang", (0, 0))
        state["lang"] = [old_pt + pt, old_en + en]
    words = _topic_words(" ".join(m.text[:2000] for m in users if m.kind != "queued"))
    old_words = set(state.get("topic", []))
    changed = bool(old_words) and len(words) >= 5 and len(words & old_words) / len(words) < 0.1
    if words:
        state["topic"] = (list(words) + [w for w in state.get("topic", []) if w not in words])[:TOPIC]
    if key == "offset":
        state["count"] = base + len(fresh)
        state["carry"] = [{"index": m.index, "offset": m.offset} for m in (carry + fresh)[-CARRY:]
                          if m.offset < tr.end]  # offsets only: the text is read again (no user words kept)
    state["scanned"] = {"from": start, "to": tr.end, "messages": len(fresh), "malformed": tr.malformed,
                        **({"cut": tr.cut} if tr.cut else {})}
    return {"found": found, "tools": sum(len(m.tools) for m in new), "ask": ask, "asks_user": asks, "steers": steers,
            "delivered": any(e.dimension == 1 and e.index >= base for e in found), "topic_changed": changed,
            "said": any(str(e.dimension) in MEMORY_DIMENSIONS and e.speaker == "user" and e.strength >= 0.8
                        and e.index >= base for e in found)}


def _steers(state: dict, users: list) -> int:
    """The user's messages in the new text that steer the work: typed after the session's first
    request (a correction, a fact, a rule, a question about the approach, an answer), with at least
    :data:`STEER_WORDS` words, not a notification or a command's wrapper. Counts the session's typed
    messages in ``state["typed"]``."""
    typed, steers = int(state.get("typed", 0)), 0
    for m in users:
        text = m.text.lstrip()
        if m.kind == "prompt" or not text or text.startswith(("<", "/")):
            continue
        if typed and len(text.split(None, STEER_WORDS)) >= STEER_WORDS:
            steers += 1
        typed += 1
    state["typed"] = typed
    return steers


def _worth_detecting(state: dict, users: list, new: list, cfg: dict, t: float, before: Sequence = ()) -> bool:
    """Whether this stop could fire, so the detectors must run: evidence is pending from
    an earlier stop, the cadence fallback is due, the new user text holds a word some
    detector needs, or the new assistant text speaks of a release."""
    if state.get("pending"):
        return True
    if state["since"] >= cfg["min_stops"] and t - (state.get("last_trigger") or state["first"]) >= \
            cfg["min_minutes"] * 60:
        return True
    return gate(users, new, before)


_COMMON = frozenset("this that with from have what when will would could should there their about please "
                    "also just make sure them then than into your yours isso esse essa para como mais "
                    "quando onde fazer pode favor".split())


def _topic_words(text: str) -> set[str]:
    return {w for w in _words(text.lower()) if len(w) >= 4 and w.isalpha() and w not in _COMMON}


def _fire(vault_dir: str, session: str, transcript: str, evidence: list, state: dict, cfg: dict,
          why: str) -> dict:
    """The scan prompt for the model in the session, as the Stop hook's output."""
    from mdmem.agents.checkpoint import scan as cp
    from mdmem.agents.launch import started_as

    vault = vault_dir
    lang = choose(*state.get("lang", (0, 0)))
    cwd_claude = [os.path.join(state["cwd"], "CLAUDE.md")] if state.get("cwd") else []
    known = cp.Known.read(vault, cwd_claude, session, scope=cp.scope_of(vault, state.get("cwd")))
    reason = cp.scan_prompt(session, vault, known=known, evidence=evidence, topic=state.get("topic", []),
                            lang=lang, run=started_as(), why=why)
    log(vault, f"stop session={session} fired ({why}): {len(evidence)} hint(s), prompt {len(reason)} characters")
    note = ("mdmem: hora de consolidar a memória; o Claude vai revisar a sessão e sugerir o que vale guardar."
            if lang == "pt" else
            "mdmem: checkpoint: Claude reviews the session for memories worth keeping (you choose what is saved).")
    if cfg["output"] == "context":
        return {"hookSpecificOutput": {"hookEventName": "Stop", "additionalContext": reason}, "systemMessage": note}
    return {"decision": "block", "reason": reason, "systemMessage": note}
