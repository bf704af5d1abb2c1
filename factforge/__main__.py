"""``python -m factforge``: the command line, as the ``factforge`` script runs it."""
import sys

from factforge.server.cli import main

sys.exit(main())
