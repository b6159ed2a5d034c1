"""Installing mdmem into an agent's configuration files, and taking it out again, for every agent alike.

An install is a list of edits, each to one file: hooks in a JSON file (Claude Code's nesting, or Cursor's and
Copilot's flat one), an MCP server entry in JSON or TOML, or a file mdmem owns whole (a generated card, a plugin).
An entry is mdmem's only if it is exactly what mdmem writes (a hook: ``<mdmem> hook <name> --agent <agent>
--vault ...``; a server: the ``mdmem`` entry running ``mdmem mcp``): a user's own hook that mentions mdmem, or a
user's own ``mdmem`` server, is never changed or removed. Before the first change a file's old bytes go to
``<file>.mdmem-backup`` (once: a re-install never overwrites the original); uninstall takes mdmem's entries out and,
when what is left is what the backup holds, puts the backup's bytes back, so install then uninstall leaves the
file byte-identical; a file mdmem created and that holds nothing else is removed. Writes are atomic and never land
on a file changed since it was read.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from mdmem.base.errors import MdmemError
from mdmem.base.files import write_atomic

BACKUP = ".mdmem-backup"
MAX_BYTES = 4 * 1024 * 1024  # an agent's configuration file is a few KB


@dataclass(frozen=True)
class Hook:
    """One hook mdmem registers: the agent's event, mdmem's hook, and the entry's fields besides the command."""

    event: str
    command: str
    extra: dict = field(default_factory=dict)
    matcher: str | None = None


@dataclass(frozen=True)
class Edit:
    """One file's part of an install. ``kind``: ``hooks`` (Claude-style nesting), ``flat-hooks`` (``{event:
    [entry]}``, Cursor and Copilot), ``json-server`` (``key`` path to the server table), ``toml-server``, ``file``
    (mdmem owns the whole file: ``content``)."""

    path: Path
    kind: str
    hooks: tuple[Hook, ...] = ()
    key: tuple[str, ...] = ()
    entry: dict | None = None
    content: str = ""
    skeleton: dict | None = None  # the fields a new file starts with (Cursor's {"version": 1})
    command_field: str = "command"  # Copilot's entries name it "bash"
    typed: bool = True  # entries carry "type": "command" (Cursor's do not)


@dataclass(frozen=True)
class FileResult:
    path: str
    action: str  # added | updated | unchanged | removed | restored | absent | kept (a user's entry in the way)
    detail: str = ""
    content: str = ""


@dataclass(frozen=True)
class AgentResult:
    agent: str
    project: str
    files: list[FileResult]
    dry_run: bool
    notes: list[str] = field(default_factory=list)


def ours(command: object, agent: str) -> bool:
    """A hook command mdmem wrote for ``agent``: ``... hook <name> --agent <agent> --vault <path>``."""
    return isinstance(command, str) and re.search(
        rf"(^|\s)hook [a-z][a-z-]* --agent {re.escape(agent)} --vault \S", command) is not None


# --- reading and writing ------------------------------------------------------------------------------------

@dataclass
class _File:
    path: Path
    raw: bytes | None
    stamp: tuple[int, int] | None


def read_file(path: Path) -> _File:
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return _File(path, None, None)
    except OSError as e:
        raise MdmemError(f"cannot read {path}: {e.strerror}") from None
    import stat

    if not stat.S_ISREG(st.st_mode):
        raise MdmemError(f"{path}: not a regular file; nothing was changed")
    if st.st_size > MAX_BYTES:
        raise MdmemError(f"{path}: larger than {MAX_BYTES} bytes; nothing was changed")
    return _File(path, path.read_bytes(), (st.st_mtime_ns, st.st_size))


def _parse(edit: Edit, raw: bytes | None) -> dict:
    if raw is None or not raw.strip():
        return {}
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise MdmemError(f"{edit.path}: not UTF-8 text; nothing was changed") from None
    try:
        if edit.kind == "toml-server":
            import tomlkit

            return tomlkit.parse(text)
        data = json.loads(text)
    except Exception as e:  # json.JSONDecodeError, tomlkit's ParseError
        raise MdmemError(f"{edit.path}: not valid {'TOML' if edit.kind == 'toml-server' else 'JSON'} ({e}); "
                         "nothing was changed") from None
    if not isinstance(data, dict):
        raise MdmemError(f"{edit.path}: the top level must be an object; nothing was changed")
    return data


def _render(edit: Edit, data) -> str:
    if edit.kind == "toml-server":
        import tomlkit

        return tomlkit.dumps(data)
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def _plain(data) -> object:
    """Parsed data as plain Python (tomlkit's containers compare by value this way)."""
    return json.loads(json.dumps(data, default=str))


def _write(f: _File, text: str, dry_run: bool) -> None:
    if dry_run:
        return
    backup = f.path.with_name(f.path.name + BACKUP)
    if f.raw is not None and not backup.exists():  # the original, once
        write_atomic(backup, f.raw)
    f.path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(f.path, text.encode("utf-8"), expected=f.stamp)


# --- the edits --------------------------------------------------------------------------------------------

def _table(data: dict, key: tuple[str, ...], create: bool):
    node = data
    for part in key:
        if part not in node:
            if not create:
                return None
            node[part] = {}
        node = node[part]
        if not isinstance(node, dict):
            raise MdmemError(f'"{".".join(key)}" is not an object; nothing was changed')
    return node


def _add_hooks(edit: Edit, data: dict, agent: str) -> bool:
    for key, value in (edit.skeleton or {}).items():
        data.setdefault(key, value)
    events = _table(data, ("hooks",), True)
    changed = False
    for hook in edit.hooks:
        groups = events.setdefault(hook.event, [])
        if not isinstance(groups, list):
            raise MdmemError(f'{edit.path}: "hooks.{hook.event}" is not an array; nothing was changed')
        entry = {**({"type": "command"} if edit.typed else {}), edit.command_field: hook.command, **hook.extra}
        if edit.kind == "flat-hooks":
            entries = groups
        else:
            mine = [g for g in groups if isinstance(g, dict) and any(
                ours(e.get("command"), agent) for e in g.get("hooks", []) if isinstance(e, dict))]
            if not mine:
                group: dict = {"hooks": []} if hook.matcher is None else {"matcher": hook.matcher, "hooks": []}
                groups.append(group)
                mine = [group]
            entries = mine[0]["hooks"]
        found = [e for e in entries if isinstance(e, dict) and ours(e.get(edit.command_field), agent)]
        if found:
            if any(found[0].get(k) != v for k, v in entry.items()):
                found[0].update(entry)
                changed = True
        else:
            entries.append(entry)
            changed = True
    return changed


def _drop_hooks(edit: Edit, data: dict, agent: str) -> bool:
    events = data.get("hooks")
    if not isinstance(events, dict):
        return False
    changed = False
    for event in list(events):
        groups = events[event]
        if not isinstance(groups, list):
            continue
        if edit.kind == "flat-hooks":
            kept = [e for e in groups if not (isinstance(e, dict) and ours(e.get(edit.command_field), agent))]
        else:
            kept = []
            for g in groups:
                inner = g.get("hooks") if isinstance(g, dict) else None
                if not isinstance(inner, list):
                    kept.append(g)
                    continue
                rest = [e for e in inner if not (isinstance(e, dict) and ours(e.get("command"), agent))]
                if len(rest) != len(inner):
                    changed = True
                    if not rest:
                        continue
                    g["hooks"] = rest
                kept.append(g)
        if len(kept) != len(groups):
            changed = True
        if kept:
            events[event] = kept
        else:
            del events[event]
    if changed and not events:
        del data["hooks"]
    return changed


def _server_is_ours(entry: object) -> bool:
    """An MCP entry that runs ``mdmem mcp --vault ...`` (the console script, or ``python -m mdmem``)."""
    if not isinstance(entry, dict):
        return False
    command = entry.get("command")
    words = [str(w) for w in (command if isinstance(command, list) else [command])] + [
        str(a) for a in entry.get("args", []) or []]
    mdmem = any(os.path.basename(w) == "mdmem" for w in words[:1]) or any(
        a == "-m" and b == "mdmem" for a, b in zip(words, words[1:]))
    return mdmem and "mcp" in words and "--vault" in words


def _add_server(edit: Edit, data: dict) -> tuple[bool, str]:
    parent = _table(data, edit.key[:-1], True)
    name = edit.key[-1]
    old = parent.get(name)
    if old is not None and _plain(old) == edit.entry:
        return False, ""
    if old is not None:  # the user's own entry (or one for another vault): never replaced
        return False, (f"a server named {name!r} is there already ({json.dumps(_plain(old))}): left as it is; "
                       "remove it, or uninstall first, to have mdmem write its own")
    if edit.kind == "toml-server":
        import tomlkit

        table = tomlkit.table()
        for k, v in (edit.entry or {}).items():
            table[k] = v
        parent[name] = table
    else:
        parent[name] = edit.entry
    return True, ""


def _drop_server(edit: Edit, data: dict, original: dict | None) -> bool:
    """Take mdmem's server out; never one the file held before mdmem's first install (``original``)."""
    parent = _table(data, edit.key[:-1], False)
    if parent is None or edit.key[-1] not in parent or not _server_is_ours(_plain(parent[edit.key[-1]])):
        return False
    before = _table(original, edit.key[:-1], False) if original else None
    if before is not None and edit.key[-1] in before:
        return False
    del parent[edit.key[-1]]
    # tables mdmem's entry leaves empty go too, from the innermost out
    for depth in range(len(edit.key) - 1, 0, -1):
        node = _table(data, edit.key[:depth], False)
        if node is not None and not _plain(node):
            del _table(data, edit.key[:depth - 1], False)[edit.key[depth - 1]]
    return True


def _empty(edit: Edit, data) -> bool:
    plain = _plain(data)
    return not plain or plain == (edit.skeleton or {})


def _by_file(edits: list[Edit]) -> dict[Path, list[Edit]]:
    """Edits grouped by file, in order: one read and one write per file (a file's backup is its state before
    this install, never a state this install made)."""
    grouped: dict[Path, list[Edit]] = {}
    for edit in edits:
        grouped.setdefault(edit.path, []).append(edit)
    return grouped


def install(agent: str, project: Path, edits: list[Edit], dry_run: bool = False,
            notes: list[str] | None = None) -> AgentResult:
    results = []
    for path, group in _by_file(edits).items():
        f = read_file(path)
        if group[0].kind == "file":
            results.append(_install_file(group[0], f, dry_run))
            continue
        data = _parse(group[0], f.raw)
        changed, details = False, []
        for edit in group:
            if edit.kind in ("hooks", "flat-hooks"):
                changed = _add_hooks(edit, data, agent) or changed
            else:
                added, detail = _add_server(edit, data)
                changed = added or changed
                details += [detail] if detail else []
        text = _render(group[0], data) if changed else (f.raw or b"").decode("utf-8-sig")
        if changed:
            _write(f, text, dry_run)
        action = ("updated" if f.raw is not None else "added") if changed else ("kept" if details else "unchanged")
        results.append(FileResult(str(path), action, "; ".join(details), text))
    return AgentResult(agent, str(project), results, dry_run, notes or [])


def _install_file(edit: Edit, f: _File, dry_run: bool) -> FileResult:
    if f.raw is not None and f.raw.decode("utf-8", "replace") == edit.content:
        return FileResult(str(edit.path), "unchanged", content=edit.content)
    if f.raw is not None and not _owned_file(f.raw):
        return FileResult(str(edit.path), "kept", "a file mdmem did not write is there")
    _write(_File(f.path, None, f.stamp), edit.content, dry_run)  # no backup of mdmem's own file
    return FileResult(str(edit.path), "updated" if f.raw is not None else "added", content=edit.content)


OWNED_MARK = "generated by mdmem"  # a file mdmem owns whole says so in its first lines


def _owned_file(raw: bytes) -> bool:
    return OWNED_MARK in raw[:400].decode("utf-8", "replace")


def uninstall(agent: str, project: Path, edits: list[Edit], dry_run: bool = False) -> AgentResult:
    results = []
    for path, group in _by_file(edits).items():
        f = read_file(path)
        if f.raw is None:
            results.append(FileResult(str(path), "absent"))
            continue
        if group[0].kind == "file":
            if not _owned_file(f.raw):
                results.append(FileResult(str(path), "kept", "a file mdmem did not write"))
                continue
            if not dry_run:
                os.unlink(path)
                _prune(path.parent, project)
            results.append(FileResult(str(path), "removed"))
            continue
        data = _parse(group[0], f.raw)
        backup = path.with_name(path.name + BACKUP)
        original = read_file(backup).raw if backup.is_file() else None
        before = _parse(group[0], original) if original is not None else None
        changed = False
        for edit in group:
            dropped = (_drop_hooks(edit, data, agent) if edit.kind in ("hooks", "flat-hooks")
                       else _drop_server(edit, data, before))
            changed = dropped or changed
        if not changed:
            results.append(FileResult(str(path), "absent"))
            continue
        if original is not None and _plain(before) == _plain(data):
            if not dry_run:
                write_atomic(path, original, expected=f.stamp)
                os.unlink(backup)
            results.append(FileResult(str(path), "restored", content=original.decode("utf-8-sig")))
        elif original is None and _empty(group[0], data):
            if not dry_run:
                os.unlink(path)
                _prune(path.parent, project)
            results.append(FileResult(str(path), "removed"))
        else:
            text = _render(group[0], data)
            if not dry_run:
                write_atomic(path, text.encode("utf-8"), expected=f.stamp)
            results.append(FileResult(str(path), "updated", content=text))
    return AgentResult(agent, str(project), results, dry_run)


def _prune(folder: Path, project: Path) -> None:
    """Remove folders the uninstall left empty, up to (not including) the project."""
    try:
        while folder != project and project in folder.parents and not any(folder.iterdir()):
            folder.rmdir()
            folder = folder.parent
    except OSError:
        pass
