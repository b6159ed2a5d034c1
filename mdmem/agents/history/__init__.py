"""Past sessions of every agent: the agent-neutral session record, the import into ``sessions/`` notes.

The per-format readers (``mdmem.agents.claude.history``, ``mdmem.agents.codex``, ``mdmem.agents.gemini``,
``mdmem.agents.exports``) each turn one agent's store into :class:`~mdmem.agents.history.model.Session`
records; :mod:`mdmem.agents.history.importer` writes them as notes, whatever agent they came from.
"""
