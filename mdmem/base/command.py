"""A model command: any program that reads a prompt on standard input and answers on standard output (``claude -p``,
``llm``, a local runner). The checkpoint's ``--model`` and the duplicates' judge (:mod:`mdmem.ops.judge`) run one
the same way: split like a shell would, run without a shell, bounded in time, its failures one-line errors."""

from __future__ import annotations

from mdmem.base.errors import MdmemError, UsageError


def run(command: str, text: str, timeout: float, flag: str = "--model") -> str:
    """Run ``command`` with ``text`` on standard input; its standard output. ``flag`` names the setting the
    command came from in the errors (``--model``, ``--judge``)."""
    import shlex
    import subprocess

    try:
        argv = shlex.split(command)
    except ValueError as e:
        raise UsageError(f"{flag}: cannot split {command!r}: {e}") from None
    if not argv:
        raise UsageError(f"{flag} needs a command, e.g. {flag} 'claude -p'")
    try:
        proc = subprocess.run(argv, input=text.encode("utf-8"), capture_output=True, timeout=timeout)
    except FileNotFoundError:
        raise MdmemError(f"{flag}: command not found: {argv[0]}") from None
    except subprocess.TimeoutExpired:
        raise MdmemError(f"{flag}: {argv[0]} gave no answer within {timeout:.0f} s") from None
    except OSError as e:
        raise MdmemError(f"{flag}: cannot run {argv[0]}: {e.strerror or e}") from None
    if proc.returncode != 0:
        err = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        raise MdmemError(f"{flag}: {argv[0]} exited with {proc.returncode}" + (f": {err[-1][:200]}" if err else ""))
    return proc.stdout.decode("utf-8", "replace")
