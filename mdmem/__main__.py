"""Entry point for ``mdmem`` and ``python -m mdmem``.

Kept tiny on purpose: the Claude Code hook commands (a later part) will be
dispatched from here on ``sys.argv`` before the Typer app is imported, since
they run at every agent turn and must not pay for Typer's start-up.
"""

from __future__ import annotations


def main() -> None:
    from .cli import run

    run()


if __name__ == "__main__":
    main()
