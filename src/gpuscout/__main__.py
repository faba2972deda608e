"""``python -m gpuscout``: the command line."""

from gpuscout.cli import main

main()
