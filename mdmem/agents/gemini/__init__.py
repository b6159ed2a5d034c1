"""Google Gemini CLI: its chat recordings (``~/.gemini/tmp/<project>/chats``) read as agent-neutral sessions."""
