"""What the Claude Code commands report (`hook install|uninstall|status`, `install claude`, `uninstall claude`):
their results as plain text, which :func:`mdmem.cli.render.text` then shows (control characters made visible
there, as for every line of human output)."""

from __future__ import annotations


def install_text(result) -> str:
    lines = [f"{event}: {action}" for event, action in result.actions.items()]
    changed = any(a in ("added", "updated", "removed") for a in result.actions.values())
    note = getattr(result, "note", None)
    if note and note.startswith("removed the file"):
        lines.append(f"{'would remove' if result.dry_run else 'removed'} {result.path}: it held nothing else")
        return "\n".join(lines)
    if note:
        lines.append(f"({note})")
    if result.dry_run and changed:
        lines += [f"dry run: would write {result.path}:", result.content.rstrip("\n")]
    elif changed:
        lines.append(f"wrote {result.path}" + (f" (backup: {result.backup})" if result.backup else ""))
    else:
        lines.append(f"nothing to change in {result.path}")
    return "\n".join(lines)


def skills_text(result) -> str:
    lines = [f"skill /{a.name}: {a.action} ({a.path})" for a in result.skills]
    if result.dry_run and any(a.action in ("added", "updated", "removed") for a in result.skills):
        lines.append("dry run: nothing written")
    return "\n".join(lines)


def claude_text(result) -> str:
    from mdmem.agents.claude import settings as claude_settings

    text = install_text(result.mcp) + "\n" + install_text(result.hooks)
    if result.replaced is not None:
        text += "\n" + install_text(result.replaced).replace(
            "mcpServers.mdmem: removed", "mcpServers.mdmem: removed from the local scope (it would win over .mcp.json)")
    if result.gitignore:
        text += f"\n{'would write' if result.mcp.dry_run else 'wrote'} {result.gitignore} (settings.local.json, " \
                "mdmem's skills and backups stay out of git)"
    if result.skills is not None:
        text += "\n" + skills_text(result.skills)
    added = result.mcp.actions[f"mcpServers.{claude_settings.MCP_NAME}"] in ("added", "updated")
    if result.mcp.scope == "project" and added:
        text += "\nClaude Code asks once, in this project, to approve the servers of .mcp.json (commit it to share)"
    if not result.mcp.dry_run and _no_judge():
        from mdmem.base.layout import user_config_path

        text += ("\na memory that may only reword a saved one is saved with a warning; to have a model decide (and "
                 f"refuse a repeat), put [judge] command = \"claude -p\" in {user_config_path()}")
    return text


def _no_judge() -> bool:
    """No duplicates' judge is set (:func:`mdmem.base.settings.judge`; a config that cannot be read says so elsewhere)."""
    from mdmem.base.errors import MdmemError
    from mdmem.base.settings import judge

    try:
        return judge() is None
    except MdmemError:
        return False


def claude_uninstall_text(result) -> str:
    text = "\n".join(install_text(r) for r in result.results)
    if result.gitignore and getattr(result, "gitignore_removed", True):
        text += f"\n{'would remove' if result.results[0].dry_run else 'removed'} {result.gitignore}"
    elif result.gitignore:
        text += f"\n{'would update' if result.results[0].dry_run else 'updated'} {result.gitignore} (mdmem's lines " \
                "taken out, yours kept)"
    if getattr(result, "skills", None) is not None:
        text += "\n" + skills_text(result.skills)
    return text


def hook_status_text(result) -> str:
    lines = []
    for s in result.scopes:
        state = f"error: {s.error}" if s.error else ("" if s.exists else "no file")
        lines.append(f"{s.scope}: {s.path}" + (f" ({state})" if state else ""))
        for event, ev in s.events.items():
            lines.append(f"  {event}: " + (f"installed: {ev.command}" if ev.installed else "not installed"))
    for skill in result.skills or ():
        if skill.action != "absent":
            lines.append(f"skill /{skill.name}: {skill.action} ({skill.path})")
    info = result.session
    if info and info.get("session"):
        nxt = info.get("next") or {}
        lines.append(f"session {info['session']} (vault {info['vault']}): {info.get('stops', 0)} stop(s), "
                     f"{info.get('checkpoints', 0)} checkpoint(s), {info.get('prompt_notes', 0)} note(s) recalled "
                     "at prompts")
        if nxt.get("policy") == "signals":
            when = (f"  next checkpoint (signals): at a gap (a task closed, a topic change) after the user steered "
                    f"the work, a rule stated or a correction, or an ask to consolidate (rule or correction so far: "
                    f"{'yes' if nxt.get('said') else 'no'}, steering messages {nxt.get('steers', 0)}), else after "
                    f"{nxt['fallback_stops_left']} more stop(s)")
        elif nxt:
            when = f"  next checkpoint (cadence): after {nxt['stops_left']} more stop(s)"
        else:
            when = "  next checkpoint: unknown"
        lines.append(when + (f", not before {nxt['not_before']}" if nxt.get("not_before") else ""))
        pending = info.get("pending")
        if pending:
            lines.append(f"  pending checkpoint (kept by {pending['kept_by']}, {pending['saved']}): "
                         + "; ".join(pending["candidates"]))
        else:
            lines.append("  pending checkpoint: none")
        review = info.get("review")
        if review and review.get("status") == "pending":
            lines.append(f"  not scanned: {review['typed']} user message(s), recorded by {review['event']}: "
                         f"`mdmem checkpoint review --session {info['session']}`")
    elif info is not None:
        lines.append(f"no session has run mdmem's hooks in {info['vault']} yet")
    return "\n".join(lines + fired_lines(result.fired or {}))


def fired_lines(found: dict) -> list[str]:
    """Per mdmem hook, its last run in the project and its last error (``mdmem hook status``, every agent)."""
    import time

    def when(t: float) -> str:
        return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(float(t)))

    return [f"  mdmem hook {hook:12} last ran {when(st['at'])}"
            + (f"; last error {when(st['error_at'])}: {st['error']}" if st.get("error") else "")
            for hook, st in sorted(found.items())]
