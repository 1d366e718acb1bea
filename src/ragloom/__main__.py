"""``python -m ragloom``: the command line."""

import sys

from ragloom.apps.cli import main

sys.exit(main())
