"""`python -m ioscale.cli`: the same as the `ioscale` command."""

import sys

from ioscale.cli import main

sys.exit(main())
