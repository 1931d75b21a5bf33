"""Study: How long a match to 500 points lasts (standard scoring), with 2 to 10 players, and the first seat's match win edge.

    python scripts/study_match_length.py                 # quick run (the default --games)
    python scripts/study_match_length.py --games N       # see --help for the size that gives the real answer

Writes the report (report.html, summary.md, charts as PNG and SVG, CSV tables) and the runs
into results/match_length/ (or --out).  See unosim/lab/studies.py.
"""

import sys

from unosim.lab.studies import main

if __name__ == "__main__":
    sys.exit(main("match_length"))
