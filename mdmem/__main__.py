"""Entry point for ``mdmem`` and ``python -m mdmem``.

Kept tiny on purpose: ``mdmem hook ...`` (the Claude Code hooks, run at every
agent turn) is dispatched here on ``sys.argv`` to the stdlib-only
:mod:`mdmem.hooks` before the Typer app is ever imported.
"""

from __future__ import annotations

import sys


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "hook":
        from .hooks import main as hook_main

        sys.exit(hook_main(sys.argv[2:]))
    from .cli import run

    run()


if __name__ == "__main__":
    main()
