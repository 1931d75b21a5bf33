"""Study: Each simulatable house rule of `unosim rules`, alone, against the official rules (4 players, paired: same seed, so the same deals): effect on game length and on the first player's edge. Rules refused on the classic deck or needing another rule or parameters are listed as skipped in the report.

    python scripts/study_house_rules.py                 # quick run (the default --games)
    python scripts/study_house_rules.py --games N       # see --help for the size that gives the real answer

Writes the report (report.html, summary.md, charts as PNG and SVG, CSV tables) and the runs
into results/house_rules/ (or --out).  See unosim/lab/studies.py.
"""

import sys

from unosim.lab.studies import main

if __name__ == "__main__":
    sys.exit(main("house_rules"))
