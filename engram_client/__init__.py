"""Engram's agent-side clients: the Claude Code hook (`engram-hook`) and the CLI (`engram`).

Standard library only and no Django: a hook runs on every prompt, so it must start in
tens of milliseconds and work on any machine that has Python 3.
"""
