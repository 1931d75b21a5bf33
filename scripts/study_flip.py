"""Study: UNO Flip against classic UNO with 2, 4 and 6 players: game length, its spread, winner points and the first player's edge, paired per player count.

    python scripts/study_flip.py                 # quick run (the default --games)
    python scripts/study_flip.py --games N       # see --help for the size that gives the real answer

Writes the report (report.html, summary.md, charts as PNG and SVG, CSV tables) and the runs
into results/flip/ (or --out).  See unosim/lab/studies.py.
"""

import sys

from unosim.lab.studies import main

if __name__ == "__main__":
    sys.exit(main("flip"))
