"""The same-meaning test (mdmem.text.meaning) on the shapes that decide a refusal: two rules that name different
things in one sentence shape are two rules, a rule told more fully is the same rule, a quoted word or a
"co-" word is a word like any other. The figures on real pairs are in eval/test_duplicates_real.py."""

from __future__ import annotations

import pytest

from mdmem.text.meaning import same_meaning, swapped, words


@pytest.mark.parametrize("a, b", [
    ("Run `npm run lint` before committing", "Run `npm run build` before committing"),
    ("Always run mise run test before committing changes", "Always run mise run lint before committing changes"),
    ("The dev server listens on port 8080", "The dev server listens on port 8081"),
    ("Details are in `.claude/WORLD_MODEL_LOGIC.md`", "Details are in `.gemini/WORLD_MODEL_LOGIC.md`"),
    # the tool before "run"; a name in place of another (a glob too); a sub-command or a range of the other's name
    ("pnpm run tauri build       # Production build", "npm run tauri build      # Production build"),
    ("Namespaces: prefer `rearkitekt.*`; do not introduce `arkitekt.*`.",
     "Namespaces: prefer `arkitekt.*`; do not introduce `arkitekt.*`."),
    ("mise run lint          # Normal lint (new issues only)", "mise run lint:full     # All issues"),
    ("Continue with workflow Phase 1", "Complete Phase 1-6 of workflow"),
    # one shape, another plain-word subject or scope
    ("**Runtime layers** (may use `reaper.*` and `ImGui` freely):",
     "**UI layers** (may use both `reaper.*` and `ImGui` freely):"),
    ("**Pure layers** (NO `reaper.*`, NO `ImGui.*` at import time):",
     "**100% Pure layers** (NO `reaper.*`, NO `ImGui.*` - not even at runtime):"),
])
def test_one_shape_naming_other_things_is_two_rules(a, b):
    """However close the vectors say they are: a refusal here is one the user did not want."""
    assert swapped(a, b)
    assert not same_meaning(a, b) and not same_meaning(a, b, 0.97, "minilm")


@pytest.mark.parametrize("a, b, cosine", [
    ("I prefer short answers, conclusion first", "I prefer short answers with the conclusion first", None),
    ("Use pnpm, not npm", "This project uses pnpm 10+ exclusively. npm and yarn are forbidden - never use them.",
     0.8),
    ("Use `cargo check` for quick verification; use `cargo build` only when you need the final binary.",
     "`cargo check` for quick verification; `cargo build` only for final binary.", None),
    # one shape with a word put another way is not another subject ("bypassing" / "bypass"), nor is a synonym
    # in plain prose ("Pipeline:" / "Flow:")
    ("Loop detection has content, tool-sequence, and LLM layers; avoid bypassing it in runner changes.",
     "Loop detection has content, tool-sequence, and LLM layers; do not bypass in runner changes.", None),
    ("Pipeline: budget estimation -> classify -> prune -> summarize -> rebuild hot context",
     "**Flow**: budget estimation → classify → prune → summarize with separate model → rebuild hot context", None),
])
def test_a_rule_told_again_or_more_fully_is_the_same(a, b, cosine):
    """A version or a name one adds to the other ("pnpm 10+") tells the rule more fully, it is no other rule."""
    assert not swapped(a, b)
    assert same_meaning(a, b, cosine, "minilm" if cosine else None)


def test_a_quoted_word_and_a_co_word_count():
    """'any' is a stop word in prose but the subject of "avoid 'any'"; "co-author" is "coauthor"."""
    assert "any" in words("Avoid 'any', prefer 'unknown'")[0] and "any" in words("Never use `any`")[0]
    assert words("Do not co-author my commits")[0] == words("Do not coauthor my commits")[0]
