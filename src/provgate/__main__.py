import sys

from provgate.cli import main

sys.exit(main())
