"""The built-in engine: Parley runs llama.cpp's OpenAI-compatible server itself as a managed child process.

``settings`` is the settings section, ``library`` the GGUF files Parley knows (the bundled demo model among
them), ``process`` one running server, ``manager`` starts it when a run first needs it and stops it when idle
or on quit, and ``adapter`` is the chat adapter the run service uses for the provider ``builtin``.
"""

BUILTIN_PROVIDER = "builtin"  # the provider id a run names to use this engine
