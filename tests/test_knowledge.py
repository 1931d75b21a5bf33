"""What a seat learned (known cards in the observation): from swaps, a Howler and challenges, and only then."""

from __future__ import annotations

from collections import Counter

import pytest

from unosim import simulate
from unosim.core import enums as E
from unosim.players.external import PythonPolicy, kind_name


class Recorder(PythonPolicy):
    """Greedy, except that it challenges every Wild Draw Four when ``challenge`` is 1; checks at every play
    decision that what it knows about the other hands is true, and counts the decisions where it knew
    something."""

    name = "knowledge_recorder"
    params = {"challenge": 0}
    uses_state = True
    seen: Counter = Counter()

    def decide(self, d):
        if d.kind == "challenge" and self.p["challenge"]:
            return 1
        if d.kind == "play" and d.state is not None:
            s = d.state
            for seat, cards in d.known.items():
                assert seat != d.seat
                held = Counter(kind_name(int(s.fcol[d.side, c]) * E.NRANKS + int(s.frank[d.side, c]), d.side)
                               for c in s.hand[seat, :s.hlen[seat]])
                for name, count in cards.items():
                    assert held[name] >= count, (seat, name, count, held)
            Recorder.seen["knew" if d.known else "blind"] += 1
        return d.greedy()


@pytest.mark.parametrize(("rules", "deck", "challenge", "learns"), [
    ("official", "classic", 0, False),
    ("official", "classic", 1, True),            # a challenge shows the offender's hand to the challenger
    ("official+seven_zero", "classic", 0, True),  # a 7 or a 0 passes whole hands
    ("official+swap_on_five", "classic", 0, True),
    ("official", "harry_potter", 0, True),        # a Howler shows its victim's hand to everybody
])
def test_known_cards_are_true_and_come_only_from_what_was_shown(rules, deck, challenge, learns):
    Recorder.seen = Counter()
    rec = type("Rec", (Recorder,), {"params": {"challenge": challenge}, "name": f"recorder_{challenge}"})
    simulate(rules=rules, deck=deck, players=4, games=60, seed=3, threads=1,
             policies=[rec, "greedy(bluff=0.5)", "greedy(bluff=0.5)", "greedy"] if challenge else
             [rec, "greedy", "greedy", "random"])
    assert Recorder.seen["blind"] > 0
    assert (Recorder.seen["knew"] > 0) == learns, Recorder.seen
