"""Run the benchmarks from a source checkout: ``python bench/run.py [--json out.json]``.

The same as ``tenferro bench``; the workloads live in ``tenferro/benchmark.py`` so that the
installed command can run them too.
"""

import sys

from tenferro.cli import main

sys.exit(main(["bench", *sys.argv[1:]]))
