"""``python -m looplift`` — the same entry point as ``uda-compile``."""

import sys

from looplift.compiler.cli import main

sys.exit(main())
