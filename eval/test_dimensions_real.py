"""The detectors on what real people write (the misses and false alarms found in real sessions, paraphrased),
and the offline path and the hook on the tune split of eval/data/checkpoint-real (the holdout split
is reported by scripts/eval_checkpoint.py, never asserted on here: it is not tuned on)."""

from __future__ import annotations

import pytest

from mdmem.agents.checkpoint import dimensions
from mdmem.agents.claude.transcript import parse
from support import script


def found(text: str) -> dict[int, float]:
    out: dict[int, float] = {}
    for e in dimensions.detect(parse(text.encode()).messages):
        out[e.dimension] = max(out.get(e.dimension, 0), round(e.strength, 2))
    return out


@pytest.mark.parametrize("text, expected", [
    # misses: preferences, decisions and corrections said without the trigger words
    ("User: build the sheets. and whenever you build those sheets, put the region and the season on top",
     {2: 0.85}),
    ("User: Let's drop the dashboard and just render images.", {4: 0.8}),
    ("User: The runtime is new enough, so no build step.", {4: 0.8}),
    ("User: we could build that later but for now I think that just adds complexity", {4: 0.8}),
    ("User: htmx over Datastar: more mature, better documented.", {4: 0.9}),
    ("User: When the two disagree, trust the printed forms.", {2: 0.8}),
    ("User: There is already a repo, no need to create one; commit messages follow the conventional style.",
     {6: 0.85}),
    ("User: Hold off on applying those - could you trim the list first?", {6: 0.85}),
    ("Assistant: I edited the local .gitignore.\nUser: Sure, but the CLI should handle that for every user, "
     "not you editing this repo.", {6: 0.85}),
    ("User: I only want one install of you, preferably brew", {3: 0.8}),
    ("User: imports go at the top of modules, not inside of methods.", {3: 0.8}),
    ("User: Do not use it with any repositories other than acme/widgets", {3: 0.8, 6: 0.75}),
    ("User: let's make sure we're using US English everywhere please", {3: 0.8}),
    ("User: also please remember always UK english not US english.", {2: 0.85}),
    # a standing safeguard, a spelling convention (③: about the project's text)
    ("User: fix the scroll bug. make sure you do not lose my data in the database", {3: 0.8}),
    ("User: make sure you never push straight to main", {2: 0.8}),  # no tool named: a rule of behaviour
    ("User: make sure the tests pass before you commit", {}),  # a task step, not a safeguard
    ("User: please use the british spelling in the docs :)", {3: 0.8}),
    ("User: the british spelling of colour differs", {}),
    # hard-wrapped text is one sentence, not fragments
    ("User: I wrote this in my editor and it wraps\nat seventy columns, so please always run\nthe linter before "
     "you commit anything.", {3: 0.7}),
    # false alarms: trees, tables, plans, somebody else's release notes, an unapproved suggestion
    ("User: add the page\nAssistant: ok\n[tool: Write] a\nAssistant: Here is the layout:\n├── src/ ✅ done\n"
     "| step | status |\n| build | ✅ complete |", {}),
    ("Assistant: From the changelog: a new version 3.2 of requests was released last week.", {}),
    ("Assistant: Sometimes a new version is released but the Homebrew formula has not been updated yet.", {}),
    ("Assistant: Plan:\n1. Use a queue rather than polling because it scales.\n2. Ship it.", {}),
    ("Assistant: I would use a queue rather than polling because it scales.", {}),
    ("Assistant: I would use a queue rather than polling because it scales.\nUser: ok, go ahead", {4: 0.7}),
    ("User: fix it\nAssistant: x\n[tool: Bash] make\nAssistant: This runs only when creating a new session.", {}),
    ("User: fix it\nAssistant: x\n[tool: Bash] make\nAssistant: Fixed, all tests pass. Want me to commit?", {}),
    ("User: resume last session", {}),
])
def test_what_real_people_write(text: str, expected: dict[int, float]):
    assert found(text) == expected


# issue 13, second round (the dev split of eval/data/checkpoint-real, paraphrased): each class of phrasing
# with an example and a near miss that must not fire
SECOND_ROUND = [
    # a correction the assistant concedes ("You're right", "Good catch"), whatever the user's words
    ("User: add a retry to the upload.\nAssistant: Done, it raises after three tries.\nUser: but then the upload "
     "still just fails and nobody knows why, right?\nAssistant: You're right. Failing loudly is not enough.", {6: 0.85}),
    ("User: document the sync flow\nAssistant: The sync only runs on manual saves.\nUser: that part is wrong, for "
     "scheduled saves we also run the sync from a cron job, so both paths sync\nAssistant: You're absolutely right! "
     "Let me fix that.", {3: 0.85}),  # a fact corrected, stated in the user's words: ③
    ("Assistant: I'll summarise the whole log.\nUser: we should be summarising only the last step I think, not the "
     "entire log of the run\nAssistant: Good catch - only the last step.", {4: 0.85}),  # a decision argued
    ("User: corrige o upload\nAssistant: Pronto, agora falha depois de três tentativas.\nUser: mas isso ainda faz o "
     "upload falhar e o usuário fica sem saber o que fazer, certo?\nAssistant: Você tem razão. O upload deveria cair "
     "numa fila local.", {6: 0.85}),
    ("User: publish it\nAssistant: I won't run the publish command.\nUser: why won't you run it?\nAssistant: You're "
     "right to question that.", {}),  # a bare question: too few words of its own
    ("User: bump the timeout in config/app.yaml to 60\nAssistant: Done, the timeout is 60 now.\nUser: done? the file "
     "still says 30 on my side\nAssistant: You're right, I did not apply it, sorry. Shall I make the edit now?", {}),
    # (a short apology that asks what to do next: a slip owned, no point taken up)
    ("User: For the export there is also the option to write CSV files directly from the view\nAssistant: You're "
     "absolutely right! Let me add it.", {}),  # an addition, nothing said to be wrong
    ("User: ⏺ Ran 1 stop hook ⎿ Stop hook prevented continuation and then some more text here\nAssistant: Good "
     "catch! Those are hooks.", {}),  # Claude Code's UI pasted back
    # a path kept off limits: ③ with its path, not a correction
    ("User: update the index. never edit the `drafts/` folder, I write those myself.", {3: 0.85}),
    ("User: não mexa na pasta `rascunhos/`, eu mesmo faço isso.", {3: 0.85}),
    ("User: don't touch anything yet", {6: 0.75}),
    # something kept so on purpose
    ("User: that's by design - leave the cache files out of git!", {3: 0.85}),
    ("User: isso é proposital - mantém fora do git!", {3: 0.85}),
    ("User: was that intentional?", {}),
    # a tool's feature going away, said by the user
    ("User: the old config key is deprecated in favour of the new settings block, see the docs", {3: 0.8}),
    ("Assistant: the old config key is deprecated.", {}),
    ("User: is the old key deprecated?", {}),
    # a reminder that is an instruction: about the work ③, about asking the user ②
    ("User: fetch the open issues. and remember to use the date order", {3: 0.8}),
    ("User: adiciona o teste. e lembre de usar paginação", {3: 0.8}),
    ("User: remember to ask me before you push", {2: 0.8}),
    ("User: I need to remember to renew the domain", {}),
    ("User: fix the parser and remember to run the tests", {}),  # a step of the task, not a practice
    ("User: make sure to commit when you're done", {}),
    # a rule for the assistant in the third person, as CLAUDE.md says it
    ("User: note in CLAUDE.md that Claude should never run the load tests unless told, they cost money", {2: 0.85}),
    ("User: make sure the agent should only deploy when asked", {2: 0.85}),
    ("User: the agent should start faster now", {}),
    # a standing rule asked as a question; a question about what is always so is not one
    ("User: could you always use pnpm instead of npm in this repo?", {3: 0.8}),
    ("User: can you never reply with more than three paragraphs?", {2: 0.8}),
    ("User: você pode sempre responder em português?", {2: 0.8}),
    ("User: does it always fail on the first run?", {}),
    ("User: can you check why it always fails?", {}),
    # why not reuse what exists ("is there no library for that??")
    ("Assistant: I wrote a date parser.\nUser: isn't there a standard library function for that??", {6: 0.8}),
    ("Assistant: Escrevi um validador de datas.\nUser: não existe uma biblioteca para isso??", {6: 0.8}),
    ("User: is there no way to see the logs?", {}),
    # "don't" with a request: how the user wants that kind of work done (②, a hint); alone, a correction
    ("User: can you add a test for the parser? (don't add many, only the main case)", {2: 0.7}),
    ("User: don't add many tests.", {6: 0.75}),
    # the user's own data is the project's (③), even misspelt around it
    ("User: fix the scroll bug. make sure you do not lose my data in the databas", {3: 0.8}),
    # (after sessions 27-34 were merged) a reminder said "be sure to"; what a name means here (⑦)
    ("User: move the server files into infra/, but be sure to keep the staging and production configs apart",
     {3: 0.8}),
    ("User: be sure you're happy with it", {}),
    ("User: Acme-Docs is our repo and local folder (documents/acme-docs)", {7: 0.8}),
    ("User: when I say prod I mean the EU cluster", {7: 0.8}),
    ("User: the bug is in our repo", {}),
    # a pick after "yes,"; a value settled on in quotes; a stop with a doubt
    ("Assistant: Options:\nA) a mock server\nB) a bare socket\nWhich do you prefer?\nUser: yes, option a, but note "
     "that we should also cover the http mode.", {4: 0.85}),
    ("User: ok let's do `Last seen: <date>`", {4: 0.8}),
    ("User: let's do the tests next", {}),
    ("User: wait, that doesn't seem like it would work in CI.", {6: 0.85}),
    ("User: espera, isso não vai funcionar no CI.", {6: 0.85}),
    ("User: wait for the build to finish", {}),
    # a convention said with "explicitly"/"deliberately" and its why; a pick with the user's own words is firmer
    ("User: the cli is fine here, right? (we use the http client explicitly elsewhere so tests need no network)",
     {3: 0.85}),
    ("User: we use it explicitly here?", {}),
    ("Assistant: Options:\nA) a mock server\nB) a bare socket\nWhich do you prefer?\nUser: B.", {4: 0.8}),
    ("Assistant: Options:\nA) a mock server\nB) a bare socket\nWhich do you prefer?\nUser: I think B, a socket is "
     "enough - it keeps the test suite light and fast", {4: 0.85}),
    # a bare "don't" about the product is a hint, not enough alone; asking for ideas is not a correction
    ("User: don't do it when i click the save button, though.", {6: 0.75}),
    ("User: hmm, I'm not sure this is right because quotes break it too, any suggestions?\nAssistant: You're right "
     "- quotes are a problem either way. Options: ...", {}),
]


@pytest.mark.parametrize("text, expected", SECOND_ROUND)
def test_second_round_classes(text: str, expected: dict[int, float]):
    assert found(text) == expected


def test_the_hooks_gate_lets_every_second_round_class_through():
    """A quiet stop runs the detectors only when its new text holds a word they need (hooks.gate):
    each class above that fires must pass it (the conceding reply included)."""
    from mdmem.agents.hooks import session as hooks

    for text, expected in SECOND_ROUND:
        if not any(v >= dimensions.HIT for v in expected.values()):
            continue
        messages = parse(text.encode()).messages
        users = [m for m in messages if m.speaker == "user"]
        assert hooks.gate(users[-1:], messages, messages[:-1]), text


# fourth round (generalisation: the classes holdout3 missed, each checked on the batches that did not
# inspire it, scripts/eval_checkpoint.py): paraphrased, with near misses
_REVIEW = ("The sync script loads the whole settings file while strict mode is active. Strict mode aborts the script "
           "as soon as the settings file mentions an undefined variable, which is common in shared settings files "
           "used by other tools. Every hook then fails. The script only needs the DEBUG flag, but loading executes "
           "the whole file.")
_PASTED_RULE = ("Never join raw session identifiers into file paths. A crafted identifier can escape the state "
                "directory, which is a path traversal risk in every command that reads state or writes it to disk. A "
                "shared validator called from each entry point would close the gap for all of these commands at once, "
                "with one test per edge case.")
_FIXES = ("Assistant: Both sessions look the same:\n1. The cache is stale\n2. The lock is held\n\nPossible fixes:\n\n"
          "1. **Clear the cache on start**: simple\n2. **Drop the lock**: risky\n3. **Add a timestamp**: more work\n\n"
          "Which approach do you prefer?\nUser: ")
FOURTH_ROUND = [
    # a pick said with a verb and the option's label ("let's go with option 1"), after a message whose numbering
    # starts again for the options (the last list is the offer)
    (_FIXES + "let's go with option 1", {4: 0.8}),
    ("Assistant: Options:\nA) a mock server\nB) a bare socket\nWhich do you prefer?\nUser: let’s go with option b",
     {4: 0.8}),
    ("User: let's go with option 1", {}),  # no options were offered
    # a pick by place or with a lead-in ("the first one", "sounds good, go with 1", "do 2", "fico com a primeira");
    # not an ordinal that orders the work or says what is wrong with an option
    (_FIXES + "the second one", {4: 0.8}),
    (_FIXES + "sounds good, go with 1", {4: 0.8}),
    (_FIXES + "do 2", {4: 0.8}),
    (_FIXES + "fico com a primeira", {4: 0.8}),
    (_FIXES + "first, tell me what each costs", {}),
    (_FIXES + "the first one fails in CI", {}),
    # a standing preference scoped by "wherever we can" / "where possible": a domain rule (③)
    ("User: functions should take the typed path objects rather than plain strings wherever we can", {3: 0.8}),
    ("User: tests must use the fake clock where possible", {3: 0.8}),
    ("User: as funções devem receber os tipos fortes em vez de string sempre que possível", {3: 0.8}),
    ("User: we should fix that wherever it appears", {}),  # a task step, however wide
    ("User: put the file wherever you can find room", {}),
    ("User: can we use the typed ids wherever we can?", {}),  # asked, not stated
    # a review comment the user pasted, conceded: what it says is at most a domain rule (③), a hint (0.7);
    # the same point typed in the user's own words is their correction (⑥)
    ("User: fix the wrapper\nAssistant: Done.\nUser: " + _REVIEW + "\nAssistant: Excellent catch! The script only "
     "needs one variable.", {3: 0.7}),
    ("User: fix the wrapper\nAssistant: Done.\nUser: but you source the whole settings file and we only need the "
     "DEBUG flag, strict mode kills it\nAssistant: Excellent catch! The script only needs one variable.", {6: 0.85}),
    ("User: " + _REVIEW + "\nAssistant: I'll look at the script.", {}),  # pasted, not conceded
    # a rule inside a pasted comment is the comment's: ③ at most, a hint; typed by the user, it is theirs
    ("User: " + _PASTED_RULE, {3: 0.7}),
    ("User: never join raw session ids into file paths, I got burnt by a path traversal once", {2: 0.85}),
    # what makes a sentence a standing rule whatever its words (from paraphrases, not from a session): a habit of
    # the team with its scope or what it rules out; a kind of thing under a modal; "avoid" + a kind of thing;
    # "X instead of Y" as a practice; each with the task step or fact that reads alike
    ("User: we use uv in this repo, not pip", {3: 0.8}),
    ("User: in this codebase we avoid global state", {3: 0.8}),
    ("User: we don't mock our own modules in tests", {3: 0.8}),
    ("User: we use the cache to speed this up", {}),
    ("User: we never use it", {}),
    ("User: logs should go to stderr, not stdout", {2: 0.8}),
    ("User: tests must not hit the network", {3: 0.8}),
    ("User: the tests should pass now", {}),
    ("User: errors need to be handled in parse()", {}),
    ("User: users need to be able to log in", {}),
    ("User: avoid abbreviations in names", {2: 0.8}),
    ("User: avoid the merge conflict by rebasing first", {}),
    ("User: return a result object rather than raising for expected failures", {2: 0.8}),
    ("User: use the helper instead of copying the loop here", {}),
    ("User: use the second file instead", {}),
]


@pytest.mark.parametrize("text, expected", FOURTH_ROUND)
def test_fourth_round_classes(text: str, expected: dict[int, float]):
    assert found(text) == expected


def test_the_hooks_gate_lets_every_fourth_round_class_through():
    from mdmem.agents.hooks import session as hooks

    for text, expected in FOURTH_ROUND:
        if not any(v >= dimensions.HIT for v in expected.values()):
            continue
        messages = parse(text.encode()).messages
        users = [m for m in messages if m.speaker == "user"]
        assert hooks.gate(users[-1:], messages, messages[:-1]), text


@pytest.mark.parametrize("text, pasted", [
    (_REVIEW, True),
    ("Additional feedback: If the prompt contains newline characters, they could break the display format and "
     "confuse the interactive prompt. Newlines would create extra lines in the output. Consider replacing newlines "
     "with spaces or a newline indicator before display, so the format stays one line per item in the list.", True),
    (_REVIEW.replace("Every hook then fails.", "We then see every hook fail."), False),  # the user's own voice
    ("again, this is not correct: " + _REVIEW, False),  # typed around a paste: it opens in lower case
    ("The sync script loads the whole settings file. Strict mode aborts it.", False),  # too short to tell
])
def test_pasted_text_reads_as_pasted(text: str, pasted: bool):
    from mdmem.agents.checkpoint.evidence import pasted as is_pasted

    assert is_pasted(text) is pasted


def test_a_pick_after_a_restarted_numbering_takes_the_last_list():
    from mdmem.agents.checkpoint.candidates import candidate

    evidence = [e for e in dimensions.detect(parse((_FIXES + "let's go with option 1").encode()).messages)
                if e.dimension == 4]
    c = candidate(1, 4, evidence, "en", "2026-01-01")
    assert (c.name, c.chosen, c.rejected) == ("Chose Clear the cache on start", "Clear the cache on start",
                                              ["Drop the lock", "Add a timestamp"])


def _eval():
    return script("eval_checkpoint")


def test_dev_split_offline_and_replay():
    """Floors a little under the figures measured when this was written (dev split, every session
    read and tuned on: 34 sessions, precision 1.00, recall 0.86, the replay right in 34 of 34; then 42
    with holdout3 read after its one blind run: 0.91, 0.74, 40 of 42; after the fourth round: 1.00, 0.81,
    42 of 42; then 58 with holdout4 and holdout5 read after their blind runs, and the hook's follow-up
    signal: 0.86, 0.70, 46 of 58 right, a fire after 52 of the 58 firm items; then 74 with holdout6 and holdout7
    read after their blind runs: 0.82, 0.59, 57 of 74, 60 of 68; then 89 with holdout8 and holdout9: 0.72, 0.51,
    67 of 89, 68 of 79; then 105 with holdout10 and holdout11 after their blind run: 0.62, 0.46, 80 of 105, 75 of
    88): a change that loses more is a
    regression (floors, not the figures: sessions added to the dev split later may be harder). The hook leans to
    firing (the model judges), so its floor is on the firm items a fire came after, and a looser one on the
    fire/silent decision. Names are at most 60 characters, with no tags or ellipses.

    Since the trigger has a budget (decision record 025): the floors on "a fire came after" (0.85 of the firm
    items) and on fire/silent (0.7 of the sessions) measured a hook that fired at 32 % of all stops. Now the hook
    fires at natural gaps within about 1 in 10 stops, and what no scan covered goes to the next session's review,
    so the checks are: every firm item is covered by a scan (in the session or by the review), every session with
    a firm item is scanned, and firings stay within 11 % of the stops (measured at the change: dev 105 sessions,
    see the decision record for the figures)."""
    report = _eval().run("dev")
    offline = report["offline"]
    assert report["sessions"] >= 105
    assert offline["precision"] >= 0.58 and offline["recall"] >= 0.43, offline
    assert report["firm_covered"] == report["firm_items"], report["firm_covered"]
    assert report["worth_scanned"] == report["worth"], [(p["file"], bool(p["fired"]), p["worth"])
                                                        for p in report["replay"]]
    assert report["fires"] <= 0.11 * report["stops"], (report["fires"], report["stops"])
    for row in report["rows"]:
        for c in row["candidates"]:
            assert len(c["name"]) <= 60 and "…" not in c["name"] and "<" not in c["name"], c["name"]
            assert not c["name"].endswith((" the", " and", " of", " to", ",")), c["name"]
    for play in report["replay"]:
        for f in play["fired"]:
            assert f["reason_chars"] <= 6000


@pytest.mark.parametrize("text, name", [
    ("Assistant: When should summaries run?\nA) At commit time\nB) On demand\nWhich timing model do you want?\nUser: A.",
     "Timing model: At commit time"),
    ("Assistant: Two ways:\nA) A mock server\nB) A bare socket\nWhich approach?\nUser: A.", "Chose A mock server"),
    ("Assistant: Duas formas:\nA) Fila local\nB) Polling\nQual estratégia você prefere?\nUser: A.", "Estratégia: Fila local"),
])
def test_a_pick_is_named_after_what_was_asked(text: str, name: str):
    """A pick among offered options is named after what the offer asked to choose ("Which timing model
    do you want?"), unless it asked only "which approach"."""
    from mdmem.agents.checkpoint.candidates import candidate

    evidence = [e for e in dimensions.detect(parse(text.encode()).messages) if e.dimension == 4]
    lang = "pt" if "Duas" in text else "en"
    assert candidate(1, 4, evidence, lang, "2026-01-01").name == name


def test_a_conceded_omission_is_a_hint_for_the_hook_not_an_offline_suggestion(cli, vault, tmp_path):
    """"but we are missing the empty-input case (and the unicode one)?" conceded: the hook counts it (the model
    judges), the offline checkpoint does not suggest it; a doubt about the practice in its place is suggested."""
    omission = ("User: add tests for the parser\nAssistant: Added four tests.\nUser: but we are missing the "
                "empty input case (and the unicode one as well)?\nAssistant: You're right, I'll add both.\n")
    assert found(omission) == {6: 0.85}
    source = tmp_path / "t.md"
    source.write_text(omission)
    data = cli.json("checkpoint", source, "--vault", vault)
    assert (data["dimensions"], data["candidates"]) == ([], [])
    source.write_text(omission.replace("we are missing the empty input case (and the unicode one as well)?",
                                       "that would still make the parser fail silently on bad input, right?"))
    data = cli.json("checkpoint", source, "--vault", vault)
    assert [c["dimension"] for c in data["candidates"]] == [6]
