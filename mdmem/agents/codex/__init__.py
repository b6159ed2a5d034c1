"""OpenAI Codex CLI: its session store (``$CODEX_HOME/sessions``) read as agent-neutral sessions."""
