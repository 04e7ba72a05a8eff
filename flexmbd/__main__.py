"""``python -m flexmbd``: the same command line as the ``flexmbd`` script."""
import sys

from .cli import main

if __name__ == "__main__":   # importing the module (e.g. to walk the package) runs nothing
    sys.exit(main())
