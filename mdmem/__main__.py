"""Entry point for ``mdmem`` and ``python -m mdmem``.

Kept tiny on purpose: ``mdmem hook stop|session-start|prompt|pre-compact|session-end``
(the Claude Code hooks, run at every agent turn or prompt; ``refresh``, the notes cache's refresh the prompt hook
starts in the background) are dispatched here on
``sys.argv`` to :mod:`mdmem.cli.hook` before the Typer app is ever imported. Everything else,
``mdmem hook install|uninstall|status|--help`` included, is the Typer app.
"""

from __future__ import annotations

import sys

FAST = ("stop", "session-start", "prompt", "pre-compact", "session-end", "refresh")  # = mdmem.cli.hook.FAST


def main() -> None:
    if len(sys.argv) > 2 and sys.argv[1] == "hook" and sys.argv[2] in FAST:
        from mdmem.cli.hook import main as hook_main

        sys.exit(hook_main(sys.argv[2:]))
    from mdmem.cli.app import run

    run()


if __name__ == "__main__":
    main()
