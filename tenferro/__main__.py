"""``python -m tenferro`` is the ``tenferro`` command."""

import sys

from .cli import main

sys.exit(main())
