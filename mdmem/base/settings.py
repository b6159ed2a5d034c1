"""Every setting of mdmem and the one reader of ``<vault>/.mdmem/config.toml``.

Standard library only (``tomllib``, ``dataclasses``): the hook fast path reads ``[hook]`` through
:func:`hook_settings` without importing Whoosh. A missing file means the defaults; an unreadable
file or a bad value is a :class:`ConfigError` that names the file. The library reads the file once
per :class:`~mdmem.engine.memory.Memory` (``Memory.settings``), so the CLI, the MCP server and
``from mdmem import Memory`` behave the same.

Details and reasons: docs/decisions/054-settings-file.md
"""

from __future__ import annotations

import errno
import os
import stat
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, TypeVar

from mdmem.base.errors import ConfigError
from mdmem.base.layout import DAILY_DIR, STATE_DIR
from mdmem.base.obsidian import ObsidianSettings, folder_problem, obsidian_settings, text_problem

T = TypeVar("T")

CONFIG_NAME = "config.toml"
SIMILAR = 0.8  # Jaccard similarity of word 5-grams from which two notes are near-duplicates
MODES = ("lexical", "semantic", "hybrid", "auto")
FUSIONS = ("calibrated", "scores", "rrf")
MODELS = ("use-multilingual-v3", "minilm")


def config_path(vault: Path | str) -> Path:
    return Path(vault) / STATE_DIR / CONFIG_NAME


CONFIG_MAX = 256 * 1024  # bytes: a config.toml is a few hundred; a larger one is refused, never read whole


def read(vault: Path | str | None) -> dict[str, Any]:
    """The parsed ``config.toml`` of ``vault`` ({} when there is none). Only a regular file of at most
    :data:`CONFIG_MAX` bytes is read, never through a symlink, opened so a FIFO cannot block (a FIFO named
    config.toml hung every command); whatever cannot be used (no regular file, too large, not UTF-8, bad TOML,
    nesting too deep for the parser) is one :class:`ConfigError` naming the file, never a traceback."""
    if vault is None:
        return {}
    return read_file(config_path(vault))


def read_file(path: Path | str, follow: bool = False) -> dict[str, Any]:
    """A ``config.toml`` at ``path``, parsed, as :func:`read` reads a vault's ({} when absent); ``follow``: a
    symlink is followed (the user's own config, ``$MDMEM_HOME/config.toml``, may be a dotfile manager's link;
    a vault's never is, since a vault arrives by sync or clone)."""
    flags = os.O_RDONLY | os.O_NONBLOCK | (0 if follow else getattr(os, "O_NOFOLLOW", 0)) \
        | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        return {}  # the usual case: tomllib is not even imported (~1-3 ms of every command)
    except OSError as e:
        why = "it is a symlink (only a regular file in the vault is read)" if e.errno == errno.ELOOP else e.strerror
        raise ConfigError(f"cannot read {path}: {why}") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise ConfigError(f"cannot read {path}: not a regular file")
        data = os.read(fd, CONFIG_MAX + 1)
    except OSError as e:
        raise ConfigError(f"cannot read {path}: {e.strerror}") from None
    finally:
        os.close(fd)
    if len(data) > CONFIG_MAX:
        raise ConfigError(f"cannot read {path}: larger than {CONFIG_MAX // 1024} KB")
    import tomllib

    try:
        return tomllib.loads(data.decode("utf-8"))
    except UnicodeDecodeError as e:
        raise ConfigError(f"cannot read {path}: not UTF-8 (byte {e.start})") from None
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"cannot read {path}: {e}") from None
    except RecursionError:
        raise ConfigError(f"cannot read {path}: nested too deeply") from None


def _section(config: dict, name: str, where: object) -> dict:
    section = config.get(name, {})
    if not isinstance(section, dict):
        raise ConfigError(f"[{name}] in {where} is not a table")
    return section


# ----------------------------------------------------------------------------- search


@dataclass(frozen=True)
class Recency:
    """Lift recent notes: score x (1 + weight x 0.5^(age_days / half_life_days)).
    ``half_life_days <= 0`` or ``weight == 0`` turns it off."""

    half_life_days: float = 30.0
    weight: float = 0.25

    @property
    def on(self) -> bool:
        return self.half_life_days > 0 and self.weight > 0


OFF = Recency(0, 0)


@dataclass(frozen=True)
class Fusion:
    """How hybrid search fuses BM25F and the vectors (``mdmem.engine.vectors.fuse``; chosen by measurement)."""

    lexical_weight: float = 1.0
    semantic_weight: float = 1.0  # 0.75 until lexical search scored passages: see vectors.fuse
    k: float = 60.0          # reciprocal-rank fusion only
    method: str = "calibrated"  # per-query z-scores (default), "scores" (max-normalised scores), "rrf"
    flat: float = 0.15       # calibrated: the vectors' weight shrinks when best cosine - mean cosine < flat
    lead: float = 0.15       # calibrated: BM25F's first hit stays first unless best - mean cosine >= lead


@dataclass(frozen=True)
class SearchSettings:
    mode: str = "auto"
    recency: Recency = Recency()
    fusion: Fusion = Fusion()


SEARCH_KEYS = ("mode", "recency_half_life_days", "recency_weight", "hybrid_lexical_weight", "hybrid_semantic_weight",
               "rrf_k", "fusion", "hybrid_flat_spread", "hybrid_lead_spread")
SEMANTIC_KEYS = ("enabled", "model")
SECTIONS = ("search", "semantic", "check", "digest", "daily", "hook", "projects")


def _known(section: dict, name: str, keys: tuple[str, ...], where: object) -> None:
    """A key mdmem does not read is refused, as in every section: `recency_wieght = 0.5` was ignored
    without a word (a new user's trial), so the setting the user meant never applied."""
    unknown = sorted(set(section) - set(keys))
    if unknown:
        raise ConfigError(f"unknown [{name}] key in {where}: {', '.join(unknown)} (known: {', '.join(keys)})")


def _search(config: dict, where: object) -> SearchSettings:
    section = _section(config, "search", where)
    _known(section, "search", SEARCH_KEYS, where)
    mode = section.get("mode", SearchSettings.mode)
    if mode not in MODES:
        raise ConfigError(f"bad [search] mode in {where}: {mode!r} (lexical, semantic, hybrid or auto)")
    try:
        recency = Recency(float(section.get("recency_half_life_days", Recency.half_life_days)),
                          float(section.get("recency_weight", Recency.weight)))
        fusion = Fusion(float(section.get("hybrid_lexical_weight", Fusion.lexical_weight)),
                        float(section.get("hybrid_semantic_weight", Fusion.semantic_weight)),
                        float(section.get("rrf_k", Fusion.k)), str(section.get("fusion", Fusion.method)),
                        float(section.get("hybrid_flat_spread", Fusion.flat)),
                        float(section.get("hybrid_lead_spread", Fusion.lead)))
    except (TypeError, ValueError) as e:
        raise ConfigError(f"bad [search] value in {where}: {e}") from None
    if fusion.method not in FUSIONS:
        raise ConfigError(f"[search] fusion must be one of {', '.join(FUSIONS)} in {where}")
    if min(fusion.lexical_weight, fusion.semantic_weight, fusion.flat, fusion.lead) < 0 or fusion.k <= 0:
        raise ConfigError(f"[search] hybrid weights, hybrid_lead_spread and hybrid_flat_spread must be >= 0 "
                          f"and rrf_k > 0 in {where}")
    return SearchSettings(mode, recency, fusion)


# ----------------------------------------------------------------------------- semantic


@dataclass(frozen=True)
class SemanticSettings:
    enabled: bool = False
    model: str = "use-multilingual-v3"


def _semantic(config: dict, where: object) -> SemanticSettings:
    section = _section(config, "semantic", where)
    _known(section, "semantic", SEMANTIC_KEYS, where)
    name = section.get("model", SemanticSettings.model)
    if name not in MODELS:
        raise ConfigError(f"unknown [semantic] model {name!r} in {where}: choose {' or '.join(MODELS)}")
    return SemanticSettings(section.get("enabled") is True, name)


# ----------------------------------------------------------------------------- check


@dataclass(frozen=True)
class CheckSettings:
    """Caps and thresholds of ``mdmem check`` (``[check]``, or flags)."""

    cap: int = 40_000  # tokens for the memory files
    warn_percent: float = 80.0  # BUDGET WARNING at or above this share of the cap
    stale_days: int = 30  # STALE when not modified for this many days (0 = never)
    oversized_percent: float = 10.0  # OVERSIZED: one file above this share of the cap
    load_lines: int = 200  # Claude Code loads MEMORY.md's first 200 lines ...
    load_bytes: int = 25_000  # ... or first 25 KB, whichever comes first
    duplicate_similarity: float = SIMILAR  # Jaccard of word 5-grams for DUPLICATE (0 < x <= 1)
    unused_days: int = 180  # UNUSED (info): a memory not recalled, injected or read for this long (0 = never)

    def __post_init__(self) -> None:
        checks = {
            "cap": self.cap >= 1, "warn_percent": self.warn_percent > 0, "stale_days": self.stale_days >= 0,
            "oversized_percent": self.oversized_percent > 0, "load_lines": self.load_lines >= 1,
            "load_bytes": self.load_bytes >= 1, "duplicate_similarity": 0 < self.duplicate_similarity <= 1,
            "unused_days": self.unused_days >= 0,
        }
        bad = [name for name, ok in checks.items() if not ok]
        if bad:
            raise ValueError(", ".join(f"{name} = {getattr(self, name)!r} is out of range" for name in bad))


CHECK_KEYS = tuple(f.name for f in fields(CheckSettings))


def _numbers(config: dict, name: str, cls: type[T], where: object, flags: dict[str, Any] | None = None) -> T:
    """The ``[name]`` section of numbers read into the dataclass ``cls`` (its fields say which keys exist
    and which are whole numbers; its ``__post_init__`` the ranges), with ``flags`` on top (None: not given)."""
    section = _section(config, name, where)
    kinds = {f.name: (int if f.type in ("int", int) else float) for f in fields(cls)}  # type: ignore[arg-type]
    unknown = sorted(set(section) - set(kinds))
    if unknown:
        raise ConfigError(f"unknown [{name}] key in {where}: {', '.join(unknown)} (known: {', '.join(kinds)})")
    values: dict[str, Any] = {}
    for key, value in section.items():
        if isinstance(value, bool) or not isinstance(value, (int, float)) or (
                kinds[key] is int and not float(value).is_integer()):
            wants = "a whole number" if kinds[key] is int else "a number"
            raise ConfigError(f"bad [{name}] value in {where}: {key} = {value!r} (wants {wants})")
        values[key] = kinds[key](value)
    given = {k: v for k, v in (flags or {}).items() if v is not None}
    values.update(given)
    try:
        return cls(**values)
    except ValueError as e:
        raise ConfigError(f"bad [{name}] settings ({where}{' or flags' if given else ''}): {e}") from None


def _check(config: dict, where: object, flags: dict[str, Any]) -> CheckSettings:
    return _numbers(config, "check", CheckSettings, where, flags)


# ----------------------------------------------------------------------------- digest


@dataclass(frozen=True)
class DigestSettings:
    """``[digest]``."""

    archive_daily_after_days: int = 0  # 0 = never archive daily notes

    def __post_init__(self) -> None:
        if self.archive_daily_after_days < 0:
            raise ValueError(f"archive_daily_after_days = {self.archive_daily_after_days!r} is out of range")


def _digest(config: dict, where: object) -> DigestSettings:
    return _numbers(config, "digest", DigestSettings, where)


# ----------------------------------------------------------------------------- daily


@dataclass(frozen=True)
class DailySettings:
    """Where the daily log lives: ``[daily]`` in config.toml when it says so, else Obsidian's Daily notes
    folder and format when the vault's ``.obsidian/daily-notes.json`` sets them (the note Obsidian's Daily notes
    button opens is the day mdmem writes to: one file a day, not two), else ``memory/daily/YYYY-MM-DD.md``."""

    folder: str = DAILY_DIR
    format: str = "YYYY-MM-DD"  # moment.js date tokens (mdmem.text.moment)
    source: str = "mdmem"  # "config.toml", "obsidian" or "mdmem" (the defaults)


DAILY_KEYS = ("folder", "format")


def _daily(config: dict, where: object, vault: Path | str | None) -> DailySettings:
    section = _section(config, "daily", where)
    _known(section, "daily", DAILY_KEYS, where)
    for key, value in section.items():
        if not isinstance(value, str) or (key == "format" and not value.strip()):
            raise ConfigError(f"bad [daily] value in {where}: {key} = {value!r} (wants text)")
        if key == "format" and (why := text_problem(value)) is not None:
            raise ConfigError(f"bad [daily] format in {where}: {value!r} ({why})")
    if section:
        folder = section.get("folder", DailySettings.folder).strip().strip("/")
        why = folder_problem(folder)
        if why is not None:
            raise ConfigError(f"bad [daily] folder in {where}: {folder!r} ({why})")
        return DailySettings(folder, section.get("format", DailySettings.format).strip(), "config.toml")
    obsidian = obsidian_settings(vault) if vault is not None else ObsidianSettings()
    if obsidian.daily_folder is not None:
        return DailySettings(obsidian.daily_folder, obsidian.daily_format, "obsidian")
    return DailySettings()


# ----------------------------------------------------------------------------- all of them


@dataclass(frozen=True)
class Settings:
    """Every section of one vault's config, validated."""

    search: SearchSettings = SearchSettings()
    semantic: SemanticSettings = SemanticSettings()
    check: CheckSettings = CheckSettings()
    digest: DigestSettings = DigestSettings()
    daily: DailySettings = DailySettings()
    raw: dict = field(default_factory=dict, compare=False, repr=False)

    @classmethod
    def load(cls, vault: Path | str | None) -> Settings:
        config = read(vault)
        where = config_path(vault) if vault is not None else "defaults"
        unknown = sorted(set(config) - set(SECTIONS))
        if unknown:
            raise ConfigError(f"unknown section in {where}: {', '.join(f'[{u}]' for u in unknown)} "
                              f"(known: {', '.join(f'[{k}]' for k in SECTIONS)})" + (
                                  "; [judge] belongs in the user's own config (a command a vault names is never "
                                  "run)" if "judge" in unknown else ""))
        project_map(vault, config)  # validated here, read where a session's project is found
        return cls(_search(config, where), _semantic(config, where), _check(config, where, {}),
                   _digest(config, where), _daily(config, where, vault), config)

    def check_with(self, **flags: Any) -> CheckSettings:
        """``[check]`` with the flags given on top (``None`` = not given)."""
        return _check(self.raw, "config.toml", flags) if any(v is not None for v in flags.values()) else self.check


def check_settings(vault: Path | None, **flags: Any) -> CheckSettings:
    """``mdmem check``'s caps and thresholds: the defaults, then ``[check]`` in the vault's config,
    then the flags given (``None`` = not given)."""
    where = config_path(vault) if vault is not None else "flags"
    return _check(read(vault), where, flags)


def trouble(vault: Path | str) -> str | None:
    """Why the vault's ``config.toml`` cannot be used, in the words every command stops with (the
    :class:`ConfigError` of :meth:`Settings.load`, then of ``[hook]``: :func:`hook_settings`), or None (also
    when there is no file). For what must go on with the defaults and say so: the SessionStart hook."""
    try:
        Settings.load(vault)
        hook_settings(str(vault), {})
    except ConfigError as e:
        return str(e)
    return None


# ----------------------------------------------------------------------------- the user's own config

STATE_KEYS = ("folder",)


def _user_section(name: str, keys: tuple[str, ...]) -> tuple[dict, str] | None:
    """``[name]`` of the user's own config (:func:`mdmem.base.layout.user_config_path`, never a vault's) and the
    config's path, its keys checked against ``keys``; None when there is no such file (one ``stat``: the hooks read
    it)."""
    from mdmem.base.layout import user_config_path

    path = user_config_path()
    if not os.path.exists(path):
        return None
    section = _section(read_file(path, follow=True), name, path)
    _known(section, name, keys, path)
    return section, path


def state_folder() -> str | None:
    """``[state] folder`` of the user's own config: the folder that holds every vault's state outside the vault
    (:func:`mdmem.base.state.state_root`), or None (the state in the vault, ``.mdmem/``). Read only when the
    file exists (the hooks pay one ``stat`` otherwise)."""
    found = _user_section("state", STATE_KEYS)
    if found is None:
        return None
    section, path = found
    value = section.get("folder")
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise ConfigError(f"bad [state] folder in {path}: {value!r} (wants a folder's path)")
    return value.strip()


# ----------------------------------------------------------------------------- the duplicates' judge


@dataclass(frozen=True)
class Judge:
    """The model command that confirms or clears a guessed duplicate (:mod:`mdmem.ops.judge`, decision 122)."""

    command: str
    timeout: float = 60.0  # seconds; no answer in time: the guess stands as a warning, the save goes on
    source: str = "--judge"  # where it was set: "--judge", "MDMEM_JUDGE" or the user's config's path


JUDGE_KEYS = ("command", "timeout")


def judge() -> Judge | None:
    """The judge the user set: ``MDMEM_JUDGE`` (a command; empty: none), else ``[judge] command`` (and
    ``timeout``) of the user's own config (:func:`mdmem.base.layout.user_config_path`), else None. Never a
    vault's config: a command read from a synced or shared folder would run on every save."""
    env = os.environ.get("MDMEM_JUDGE")
    if env is not None:
        return Judge(env.strip(), source="MDMEM_JUDGE") if env.strip() else None
    found = _user_section("judge", JUDGE_KEYS)
    if found is None:
        return None
    section, path = found
    command, timeout = section.get("command"), section.get("timeout", Judge.timeout)
    if command is None:
        return None
    if not isinstance(command, str) or not command.strip():
        raise ConfigError(f"bad [judge] command in {path}: {command!r} (wants a command, e.g. \"claude -p\")")
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not 0 < timeout <= 3600:
        raise ConfigError(f"bad [judge] timeout in {path}: {timeout!r} (wants seconds, 0 < t <= 3600)")
    return Judge(command.strip(), float(timeout), str(path))


# ----------------------------------------------------------------------------- projects (stdlib, cheap)


def project_map(vault: Path | str | None, config: dict | None = None) -> dict[str, str]:
    """``[projects]``: a folder (absolute or ``~/...``) -> the name of the project it holds
    (:mod:`mdmem.base.projects`). Read only when the vault has a config file (the hooks pay nothing else)."""
    if config is None:
        if vault is None or not os.path.isfile(config_path(vault)):
            return {}
        config = read(vault)
    where = config_path(vault) if vault is not None else "config"
    section = _section(config, "projects", where)
    out: dict[str, str] = {}
    for folder, name in section.items():
        if not isinstance(name, str) or not name.strip():
            raise ConfigError(f"bad [projects] value in {where}: {folder!r} = {name!r} (wants a project's name)")
        out[str(folder)] = name.strip()
    return out


# ----------------------------------------------------------------------------- hooks (stdlib, cheap)

HOOK_DEFAULTS: dict[str, Any] = {"policy": "signals", "min_stops": 20, "min_minutes": 30.0, "min_dimensions": 2,
                                 "min_interval_minutes": 10.0, "min_tool_calls": 15, "max_transcript_mb": 8.0,
                                 "timeout_seconds": 2.0, "output": "block",
                                 "sessions_reminder_hours": 24.0}  # the card names unreviewed imported sessions
HOOK_CHOICES = {"policy": ("signals", "cadence", "evidence"), "output": ("block", "context")}


def hook_settings(vault: str, opts: dict) -> dict:
    """``[hook]`` over its defaults, then the flags in ``opts`` (``policy``, ``output``)."""
    out = dict(HOOK_DEFAULTS)
    path = config_path(vault)
    if os.path.lexists(path):
        section = _section(read(vault), "hook", path)
        for key, value in section.items():
            if key not in HOOK_DEFAULTS:
                raise ConfigError(f"unknown [hook] key {key!r} in {path} (known: {', '.join(HOOK_DEFAULTS)})")
            kind = type(HOOK_DEFAULTS[key])
            if kind is str and value not in HOOK_CHOICES[key]:
                raise ConfigError(f"[hook] {key} in {path} must be one of {', '.join(HOOK_CHOICES[key])}")
            if kind is not str and (isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0):
                raise ConfigError(f"[hook] {key} in {path} must be a number >= 0")
            out[key] = value
    out.update({k: v for k, v in opts.items() if k in ("policy", "output")})
    return out
