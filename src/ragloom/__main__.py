"""``python -m ragloom``: the command line."""

import sys

from ragloom.cli import main

sys.exit(main())
