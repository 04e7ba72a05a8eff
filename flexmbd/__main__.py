"""``python -m flexmbd``: the same command line as the ``flexmbd`` script."""
import sys

from .cli import main

sys.exit(main())
