"""The window's wiring: the ``parley`` window started (``gui``), what its widgets' signals do (``chat_session``
and its helpers) and the runs it has going on the Qt event loop (``run_controller``, ``live_runs``).
"""
