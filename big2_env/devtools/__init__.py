"""Tools for developing big2_env itself: the import-graph check (``python -m big2_env.devtools.imports``).
May import: the standard library only (it reads source files and imports nothing of big2_env)."""
