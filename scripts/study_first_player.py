"""Study: First player's edge with 2 to 10 players (official rules, random policies, seat 0 acts first).

    python scripts/study_first_player.py                 # quick run (the default --games)
    python scripts/study_first_player.py --games N       # see --help for the size that gives the real answer

Writes the report (report.html, summary.md, charts as PNG and SVG, CSV tables) and the runs
into results/first_player/ (or --out).  See unosim/lab/studies.py.
"""

import sys

from unosim.lab.studies import main

if __name__ == "__main__":
    sys.exit(main("first_player"))
