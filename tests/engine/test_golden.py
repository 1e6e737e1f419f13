"""Seeded golden transcripts: complete games (deal, every play, observation checksums, scores).

Any change of behaviour (dealing, legal plays, ordering, encodings, scoring) fails here.
After an intended change, regenerate with ``python tests/engine/test_golden.py --update`` and
review the diff.
"""

from __future__ import annotations

import hashlib
import json
import random
import sys
from pathlib import Path

import pytest

from big2_env import Decision, Game, Rules, format_cards, format_play

GOLDEN_DIR = Path(__file__).parent / "golden"
CASES = {
    "paper_seed0": (Rules(), 0),
    "charlesworth_seed1": (Rules.preset("charlesworth"), 1),
    "wrap_suitfirst_hk_seed2": (Rules(straights="wrap", flush_order="suit_first", scoring="hk"), 2),
    "fourcard_leadsfree_seed3": (Rules(four_card_plays=True, opening="3D_leads_free"), 3),
    "house_seed4": (Rules(lone_triples=False, pass_locks=True), 4),
}


def transcript(rules: Rules, seed: int) -> dict:
    """Play one game: the deal from ``seed``, each move uniform over the legal actions (random.Random(seed))."""
    rng = random.Random(seed)
    game = Game(rules, seed=seed)
    record = {
        "rules": rules.to_dict(),
        "seed": seed,
        "hands": [format_cards(h) for h in game.hands],
        "moves": [],
    }
    while not game.is_over:
        d = Decision(game)
        digest = hashlib.sha256()
        for array in (d.observation, d.actions, d.features):
            digest.update(array.tobytes())
        choice = rng.randrange(len(d.actions))
        record["moves"].append(
            {
                "player": d.player,
                "legal": len(d.actions),
                "action": int(d.actions[choice]),
                "play": format_play(d.plays[choice]),
                "obs_sha256": digest.hexdigest()[:16],
            }
        )
        game.play(d.plays[choice])
    record["winner"] = game.winner
    record["scores"] = game.scores()
    return record


@pytest.mark.parametrize("name", sorted(CASES))
def test_golden_transcript(name):
    expected = json.loads((GOLDEN_DIR / f"{name}.json").read_text())
    actual = transcript(*CASES[name])
    assert actual["hands"] == expected["hands"], "the deal changed"
    for i, (a, e) in enumerate(zip(actual["moves"], expected["moves"])):
        assert a == e, f"move {i} differs"
    assert actual == expected


def _update() -> None:
    GOLDEN_DIR.mkdir(exist_ok=True)
    for name, (rules, seed) in CASES.items():
        path = GOLDEN_DIR / f"{name}.json"
        path.write_text(json.dumps(transcript(rules, seed), indent=1) + "\n")
        print(f"wrote {path}")


if __name__ == "__main__":
    if sys.argv[1:] == ["--update"]:
        _update()
    else:
        sys.exit("usage: python tests/engine/test_golden.py --update")
