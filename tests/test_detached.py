"""A background mdmem started by a hook (:mod:`mdmem.base.detached`): its own session, no stdin, the vault as its cwd,
its output in the hook's log, and never code from the vault (a synced folder named ``mdmem`` is not imported)."""

from __future__ import annotations

import os
import sys

import pytest

from mdmem.base.detached import spawn


@pytest.mark.skipif(sys.platform == "win32", reason="sessions and posix_spawn are POSIX")
def test_a_background_mdmem_is_detached_logs_and_runs_mdmem_not_the_vaults_code(tmp_path):
    vault = tmp_path / "vault"
    fake = vault / "mdmem"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text("", "utf-8")
    (fake / "__main__.py").write_text("print('the vault ran its own code')\n", "utf-8")
    here = os.getcwd()
    pid = spawn(str(vault), ["--version"], "test.log")
    assert os.getcwd() == here  # this process is back where it was
    sid = os.getsid(pid)  # (the child is this process's until reaped: its session can be asked even once it ended)
    _, status = os.waitpid(pid, 0)
    assert sid == pid != os.getsid(0)  # a session of its own: the hook's process group killed leaves it running
    assert os.waitstatus_to_exitcode(status) == 0
    log = (vault / ".mdmem" / "hooks" / "test.log").read_text("utf-8")
    assert log.splitlines()[0].endswith(" --version") and "mdmem " in log
    assert "the vault ran its own code" not in log
