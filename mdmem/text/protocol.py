"""The memory protocol: the short text the SessionStart card, the skills and the checkpoint give the
model so that it recalls before answering about the past and scans for memories at the right moments
(the seed's primary trigger; the Stop hook is the fallback). Pure text, in the lowest layer that holds
text, so the card (``ops``) and the hooks (``agents``) share one copy."""

from __future__ import annotations

_PROTOCOL = {
    "en": """\
## Memory protocol (mdmem)
Before answering about past work, a person, a project or a decision, recall first (`{run} recall "<question>"{v}` \
or the MCP recall tool). Scan this conversation for memories worth keeping when more than 15 tool calls happened since the last scan, a \
substantial result was delivered, the topic changed, or the user asks to consolidate, review or summarise. \
Seven dimensions: task closure, a behaviour rule for CLAUDE.md, a rule about a domain/tool/file type, a decision \
with what was rejected, a milestone, a correction or confirmation of how to work, a reusable analysis. \
0-1 dimensions hit: say nothing, unless the user stated a rule or corrected you. Else pipe at most 3 candidates as JSON to `{run} checkpoint propose{v}` \
({{"candidates": [{{"type", "dimension", "name" (≤ 60 chars), "description", "body", "chosen"/"rejected", \
"paths"}}]}}), show the user the numbered list it prints, and save nothing until they pick: \
`{run} checkpoint accept 1,3{v}` or `{run} checkpoint skip{v}`. Never save code, file paths, git history, task state \
or secrets. The Stop hook reminds you when it is time.
""",
    "pt": """\
## Protocolo de memória (mdmem)
Antes de responder sobre o passado (trabalho, pessoas, projetos, decisões), consulte a memória \
(`{run} recall "<pergunta>"{v}` ou o recall do MCP). Revise a conversa pelo que vale lembrar quando houver mais de 15 chamadas de ferramenta desde a última \
revisão, um resultado substancial entregue, mudança de assunto, ou quando o usuário pedir para consolidar, revisar \
ou resumir. Sete dimensões: tarefa concluída, regra de comportamento para o CLAUDE.md, regra de domínio/ferramenta/\
tipo de arquivo, decisão com o que foi rejeitado, marco, correção ou confirmação de como trabalhar, análise \
reutilizável. 0-1 dimensões: não diga nada, salvo regra ou correção do usuário. Senão, passe até 3 candidatos em JSON para \
`{run} checkpoint propose --lang pt{v}` ({{"candidates": [{{"type", "dimension", "name" (≤ 60 caracteres), \
"description", "body", "chosen"/"rejected", "paths"}}]}}), mostre ao usuário a lista numerada impressa e \
não salve nada antes da escolha: `{run} checkpoint accept 1,3{v}` ou `{run} checkpoint skip{v}`. Nunca salve código, \
caminhos de arquivo, histórico do git, estado da tarefa ou segredos. O hook Stop lembra na hora certa.
""",
}


def memory_protocol(lang: str = "en", run: str = "mdmem", vault: str | None = None) -> str:
    """The short memory protocol for the SessionStart card (the seed's primary trigger: the
    model scans on its own at the right moments; the Stop hook is the fallback). Bounded
    (under 1,200 characters, plus the length of ``run`` and ``vault`` in its four commands) and
    byte-stable: the same arguments give the same bytes, so the card's cache and the model's
    prompt cache keep. ``vault``: every command carries ``--vault VAULT`` (shell-quoted). The card
    is read by an agent whose shell runs in the project, not the vault; a new user's trial found
    the bare ``mdmem recall`` of the card failing there ("no vault found"), or, once a default
    vault existed, ``checkpoint accept`` saving into that other vault without a word."""
    v = ""
    if vault is not None:
        import shlex

        v = " --vault " + shlex.quote(vault)
    return _PROTOCOL.get(lang, _PROTOCOL["en"]).format(run=run, v=v)
