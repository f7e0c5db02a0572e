"""What both front ends use to run a chat: the run service, where a run's messages come from and go,
providers and tools from the settings, attachment checks. No Qt: the CLI imports these without it.
"""
