"""The terminal front end: the `paor` command, its views and the local model server launcher.

`graph/` is what the agent is made of; this package only drives it from a terminal.
"""
