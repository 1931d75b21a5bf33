"""Study: how much does skill matter in UNO?  The best strategy against copies of greedy.

    python scripts/study_skill.py                          # quick run (about 1-2 minutes)
    python scripts/study_skill.py --games 1000000 --matches 100000    # the real answer
    python scripts/study_skill.py --best 'hold_wilds(threshold=2)'     # another strong strategy

Answers four questions (edge by rules, edge by players, per round vs per match to 500, share of the
outcome variance explained by strategy vs deal) and writes the report (report.html, summary.md,
charts as PNG and SVG, CSV tables) and the runs into results/skill/ (or --out).  See unosim/lab/skill.py.
"""

import sys

from unosim.lab.skill import main

if __name__ == "__main__":
    sys.exit(main())
