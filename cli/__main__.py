"""`python -m cli` is the `paor` command."""

from cli.app import main

main()
